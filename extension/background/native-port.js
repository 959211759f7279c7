// The connection to the native host. The host answers every message exactly once and
// in order, so replies are matched to requests by position.
import { api } from '../lib/api.js';
import { HOST_NAME } from '../lib/defaults.js';
import { disconnectFailure, replyFailure } from '../lib/host-failure.js';
import { HOST_MESSAGE, HOST_REPLY } from '../lib/names.js';
import { NOTE, noteText } from '../lib/format.js';

/** `failure` is a HOST_FAILURE kind; `code` the host's error number, if it answered one. */
class HostError extends Error {
  constructor(message, failure, code = null) {
    super(message);
    this.failure = failure;
    this.code = code;
  }
}

class NativeHost {
  constructor() {
    this.pending = [];
    this.closed = false;
    this.onClose = null;
    this.port = api.runtime.connectNative(HOST_NAME);
    this.port.onMessage.addListener((msg) => {
      const waiter = this.pending.shift();
      if (!waiter) return;
      if (msg.type === HOST_REPLY.error) waiter.reject(new HostError(`host error ${msg.code} (${msg.name}): ${msg.message}`, replyFailure(msg), msg.code));
      else waiter.resolve(msg);
    });
    this.port.onDisconnect.addListener((p) => {
      this.closed = true;
      // Chromium reports why through runtime.lastError, Firefox through port.error.
      const why = p?.error?.message ?? api.runtime.lastError?.message ?? noteText(NOTE.hostDisconnected);
      const failure = disconnectFailure(why);
      for (const w of this.pending.splice(0)) w.reject(new HostError(why, failure));
      this.onClose?.(why, failure);
    });
  }

  request(message) {
    if (this.closed) return Promise.reject(new HostError(noteText(NOTE.hostNotConnected), disconnectFailure('')));
    return new Promise((resolve, reject) => {
      this.pending.push({ resolve, reject });
      try {
        this.port.postMessage(message);
      } catch (e) {
        this.pending.pop();
        reject(new HostError(String(e?.message ?? e), disconnectFailure(String(e?.message ?? e))));
      }
    });
  }

  disconnect() {
    this.closed = true;
    this.port.disconnect();
  }
}

/** Connects and says hello; resolves with [host, helloReply]. */
export async function connectHost(extensionVersion, browser) {
  const host = new NativeHost();
  const reply = await host.request({ type: HOST_MESSAGE.hello, extension_version: extensionVersion, browser });
  // The registered workload modules, kept for the popup and Options (lib/module-choices.js).
  await api.storage.local.set({ registeredModules: Array.isArray(reply.modules) ? reply.modules : [] });
  return [host, reply];
}
