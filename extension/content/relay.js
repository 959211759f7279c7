// Relays messages between the benchmark page (an ordinary http page served by the
// sink) and the background. It wakes only for messages marked as Unobserved's, and it
// says nothing to a page the background does not accept as the run's own tab: another
// page on localhost cannot even learn that the extension is installed.
(() => {
  const api = globalThis.browser ?? globalThis.chrome;
  const FROM_PAGE = 'unobserved-page';
  const FROM_EXTENSION = 'unobserved-extension';
  let port = null;
  // Set once the background has spoken on the port: only then is this the run's tab.
  let accepted = false;

  function toPage(message) {
    window.postMessage({ ...message, source: FROM_EXTENSION }, window.location.origin);
  }

  window.addEventListener('message', (event) => {
    if (event.source !== window || event.data?.source !== FROM_PAGE) return;
    if (!port) {
      port = api.runtime.connect({ name: 'unobserved-bench' });
      port.onMessage.addListener((message) => {
        accepted = true;
        toPage(message);
      });
      port.onDisconnect.addListener(() => {
        port = null;
        if (accepted) toPage({ type: 'disconnected' });
      });
    }
    const { source, ...message } = event.data;
    port.postMessage(JSON.parse(JSON.stringify(message)));
  });
})();
