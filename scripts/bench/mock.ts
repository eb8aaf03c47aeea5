/**
 * A schema-driven mock of the API, as `prism mock schemas/openapi.yaml` would serve it: every documented
 * operation answers its first success status with an example body, whatever the request (no key check,
 * no validation, nothing remembered); anything else is 404. Against it most checks fail: the benchmark
 * times a run that has that much bad news. `node --import tsx scripts/bench/mock.ts [--port N]` prints
 * `listening http://127.0.0.1:PORT`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { operations } from '../../lib/contract/operations.ts';

const { values } = parseArgs({ options: { port: { type: 'string', default: '0' } } });

const routes = new Map(operations().map((op) => [`${op.method.toUpperCase()} ${op.path}`, op]));

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const op = routes.get(`${req.method ?? 'GET'} ${path}`);
    if (!op) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"message":"not found"}');
      return;
    }
    if (op.id === 'notifyAgentRun') {
      const xml = /xml/i.test(req.headers.accept ?? '') || /xml/i.test(req.headers['content-type'] ?? '');
      res.writeHead(200, { 'content-type': xml ? 'application/xml' : 'application/json' });
      res.end(xml ? '<CsnNotification><runId>string</runId></CsnNotification>' : '{"runId":"string"}');
      return;
    }
    res.writeHead(204);
    res.end();
  });
});
server.listen(Number(values.port), '127.0.0.1', () => {
  process.stdout.write(`listening http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => server.close(() => process.exit(0)));
