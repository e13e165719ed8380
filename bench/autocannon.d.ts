declare module 'autocannon' {
  /** One request of a connection's sequence; `setupRequest` may rewrite it just before it is sent. */
  export interface Request {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    setupRequest?: (request: Request, context: Record<string, unknown>) => Request | undefined;
    onResponse?: (status: number, body: string, context: Record<string, unknown>, headers: Record<string, string>) => void;
  }
  /** A connection, as `setupClient` gets it. */
  export interface Client {
    setRequests(requests: Request[]): void;
  }
  export interface Options {
    url: string;
    connections?: number;
    duration?: number;
    /** Requests in all, spread evenly over the connections; then the run ends (overrides `duration`). */
    amount?: number;
    /** Seconds to wait for an answer before counting a timeout. */
    timeout?: number;
    headers?: Record<string, string>;
    method?: string;
    requests?: Request[];
    setupClient?: (client: Client) => void;
  }
  export interface Histogram {
    p50: number;
    p99: number;
    average: number;
  }
  export interface Result {
    requests: Histogram & { total: number };
    latency: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    /** Answers by HTTP status. */
    statusCodeStats: Record<string, { count: number }>;
    /** Seconds. */
    duration: number;
  }
  /** A run in progress; `stop()` ends it early with the results so far. */
  export interface Instance {
    stop(): void;
  }
  function autocannon(options: Options): Promise<Result>;
  function autocannon(options: Options, done: (error: Error | null, result: Result) => void): Instance;
  export default autocannon;
}
