/**
 * The one search kernel: every store (native observations, auxiliary resources, projections)
 * supplies only its rows in order and a codec for its positions; the kernel reads the paging
 * parameters, cuts the page, binds cursors to their search, applies `Prefer: handling` and builds
 * the searchset Bundle.
 */
export { CURSOR_PARAM, decodeCursor, encodeCursor, isSortValues, queryCursors, readCursor, searchDigest, type Cursor, type QueryCursors, type Direction, type PositionCodec, type SortValue } from './cursor';
export { cursorOf, linkedSearch, searchsetBundle, type LinkedSearch, type SearchSite, type SearchsetBundle, type SearchsetPage } from './bundle';
export { enforceHandling, ignoredOutcomeEntries } from './handling';
export { cutPage, readPageRequest, rowsFrom, type Page, type PageRequest } from './paging';
