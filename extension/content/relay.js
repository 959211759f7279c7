// Relays messages between the benchmark page (an ordinary http page served by the
// sink) and the background. It wakes only for messages marked as Unobserved's, so
// other pages on localhost are untouched.
(() => {
  const api = globalThis.browser ?? globalThis.chrome;
  const FROM_PAGE = 'unobserved-page';
  const FROM_EXTENSION = 'unobserved-extension';
  let port = null;

  function toPage(message) {
    window.postMessage({ ...message, source: FROM_EXTENSION }, window.location.origin);
  }

  window.addEventListener('message', (event) => {
    if (event.source !== window || event.data?.source !== FROM_PAGE) return;
    if (!port) {
      port = api.runtime.connect({ name: 'unobserved-bench' });
      port.onMessage.addListener(toPage);
      port.onDisconnect.addListener(() => {
        port = null;
        toPage({ type: 'disconnected' });
      });
    }
    const { source, ...message } = event.data;
    port.postMessage(JSON.parse(JSON.stringify(message)));
  });
})();
