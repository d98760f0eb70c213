// The ceiling on this hardware: a bare Fastify route that answers 200 without storing.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
// The same work as capture: read the raw body, parse nothing.
app.removeAllContentTypeParsers();
app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
app.post('/i/:token', async () => ({ ok: true, event_id: 1 }));
await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
const address = app.server.address();
process.stdout.write(
  `${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`,
);
