// The write-up's sink: Node's http server that only counts body bytes and answers once
// the whole body is in. The receive-path baseline for `cargo bench --bench sink`.
import http from 'node:http';

const server = http.createServer((req, res) => {
  let bytes = 0;
  req.on('data', (chunk) => {
    bytes += chunk.length;
  });
  req.on('end', () => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ bytes }));
  });
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
