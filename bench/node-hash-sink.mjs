// What a user would write instead of Unobserved's sink: Node's http server hashing each
// body with crypto. Used only as a comparison by `cargo bench --bench sink`.
import http from 'node:http';
import crypto from 'node:crypto';

const server = http.createServer((req, res) => {
  const hash = crypto.createHash('sha256');
  let bytes = 0;
  req.on('data', (chunk) => {
    bytes += chunk.length;
    hash.update(chunk);
  });
  req.on('end', () => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ bytes, sha256: hash.digest('hex') }));
  });
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
