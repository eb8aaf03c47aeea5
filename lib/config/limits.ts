/**
 * How deep the harness reads nested values. The API's answers are shallow (a CsnNotification, a
 * problem+json with an `errors` object, a gateway message, an XML root with a few elements: depth 1 to 4),
 * so 64 levels is far beyond anything legitimate, and far below what a recursive walk can take (V8's
 * JSON.stringify, structuredClone and ordinary recursion give up between 5,000 and 10,000 levels).
 *
 * An answer nested deeper (JSON arrays or objects, XML elements) is never decoded: the HTTP client reports
 * it as the transport failure TOO_DEEP, which the circuit breaker counts as an unusable answer, and the
 * JSON and XML decoders refuse such text too (lib/contract/codec/depth.ts measures it without recursing).
 */
export const MAX_NESTING_DEPTH = 64;

/**
 * How deep a walker of the harness's own records goes (redaction, and with it every report writer): a
 * decoded answer of at most MAX_NESTING_DEPTH levels sits inside a report's own structure (report,
 * execution, exchange, observation: a handful of levels), with room to spare. Anything deeper is written
 * as a marker and never walked, so that no writer can crash on a value that came deep anyway.
 */
export const MAX_RECORD_DEPTH = 2 * MAX_NESTING_DEPTH;
