/**
 * On AWS the functions learn the public site URL from an SSM parameter, once per cold start.
 * The SSM side is a small HTTP server speaking the SSM JSON protocol on loopback, so the real SDK
 * client makes real requests.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromResult, toEvent } from '../../../../local/api-gateway-event';
import { invokeLambda } from '../../../../local/lambda-invoke';
import { config, resetConfig } from '../../../../shared/config';
import { authenticator } from '../../../../shared/auth/authenticate';
import { createHandler } from '../../../../shared/http/handler';
import { json } from '../../../../shared/http/response';

let server: Server;
const calls: Array<{ target: string; body: any }> = [];
let fail = false;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      calls.push({ target: String(req.headers['x-amz-target']), body: JSON.parse(body) });
      res.setHeader('content-type', 'application/x-amz-json-1.1');
      if (fail) {
        res.statusCode = 400;
        return res.end(JSON.stringify({ __type: 'ParameterNotFound', message: 'no such parameter' }));
      }
      res.end(JSON.stringify({ Parameter: { Name: 'x', Type: 'String', Value: 'https://exchange.example.org', Version: 1 } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const address = server.address() as { port: number };
  process.env.AWS_ENDPOINT_URL_SSM = `http://127.0.0.1:${address.port}`;
  process.env.AWS_REGION = 'us-east-1';
  process.env.AWS_ACCESS_KEY_ID = 'test';
  process.env.AWS_SECRET_ACCESS_KEY = 'test';
});

afterAll(() => {
  server.close();
  delete process.env.SITE_URL_PARAMETER;
  delete process.env.SITE_URL;
  delete process.env.AWS_ENDPOINT_URL_SSM;
  resetConfig();
});

const handler = createHandler({
  authenticator,
  family: 'test',
  routes: [{ method: 'GET', path: '/api/v1/site', auth: 'none', handler: async () => json(200, { siteUrl: config().siteUrl }) }],
});

const get = async () =>
  fromResult(await invokeLambda(handler, toEvent({ method: 'GET', url: '/api/v1/site', headers: { host: 'x' } }), 'test'));

describe('site URL from SSM', () => {
  it('retries after a failed read and then reads the parameter once per process', async () => {
    delete process.env.SITE_URL;
    process.env.SITE_URL_PARAMETER = '/Stack/site-url';
    resetConfig();
    fail = true;
    expect((await get()).status).toBe(500);
    fail = false;
    const first = await get();
    const second = await get();
    expect(JSON.parse(first.body.toString())).toEqual({ siteUrl: 'https://exchange.example.org' });
    expect(JSON.parse(second.body.toString())).toEqual({ siteUrl: 'https://exchange.example.org' });
    expect(calls.map((c) => c.target)).toEqual(['AmazonSSM.GetParameter', 'AmazonSSM.GetParameter']);
    expect(calls[1]!.body).toEqual({ Name: '/Stack/site-url' });
  });
});
