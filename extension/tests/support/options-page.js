// A stand-in for the Options page's DOM and for the extension API it uses (storage, the
// background's answer to registeredModules), so the real options/options.js runs under
// node --test: module-choices.test.js and options-load.test.js.

class Element {
  constructor(tag, id) {
    Object.assign(this, { tag, id, children: [], parent: null, listeners: {}, value: '', checked: false, hidden: false, textContent: '' });
  }
  append(...nodes) {
    for (const n of nodes.filter((n) => n instanceof Element)) {
      n.parent = this;
      this.children.push(n);
    }
  }
  remove() {
    this.parent.children = this.parent.children.filter((c) => c !== this);
  }
  all() {
    return this.children.flatMap((c) => [c, ...c.all()]);
  }
  querySelectorAll(selector) {
    const [tag, checked] = selector.split(':');
    return this.all().filter((e) => e.tag === tag && (!checked || e.checked));
  }
  querySelector(selector) {
    return this.querySelectorAll(selector)[0] ?? null;
  }
  addEventListener(type, f) {
    (this.listeners[type] ??= []).push(f);
  }
  fire(type, event = {}) {
    return Promise.all((this.listeners[type] ?? []).map((f) => f({ preventDefault() {}, ...event })));
  }
  focus() {}
}

const IDS = ['sizeMiB', 'reps', 'auto', 'maxSeconds', 'warmup', 'bodies', 'modules', 'transports', 'sinkUrl', 'load', 'afterRun', 'form', 'errors', 'saved', 'reset'];
const FIELDSETS = new Set(['bodies', 'modules', 'transports', 'afterRun']);

/** The options page's DOM and the extension API it uses; `registered` is the host's list. */
export function world() {
  const els = Object.fromEntries(IDS.map((id) => [id, new Element(FIELDSETS.has(id) ? 'fieldset' : 'input', id)]));
  els.modules.hidden = true;
  const doc = Object.assign(new Element('document'), { visibilityState: 'visible', getElementById: (id) => els[id], createElement: (tag) => new Element(tag) });
  const store = {};
  const changed = [];
  const state = { registered: [] };
  const set = async (items) => {
    const changes = Object.fromEntries(Object.entries(items).map(([k, v]) => [k, { oldValue: store[k], newValue: structuredClone(v) }]));
    Object.assign(store, structuredClone(items));
    await Promise.all(changed.map((f) => f(changes, 'local')));
  };
  const chrome = {
    storage: {
      local: { get: async (key) => ({ [key]: structuredClone(store[key]) }), set },
      onChanged: { addListener: (f) => changed.push(f) },
    },
    // The background's answer to registeredModules: it says hello, which stores the list.
    runtime: {
      sendMessage: async () => {
        await set({ registeredModules: state.registered });
        return { ok: true, modules: state.registered };
      },
    },
    permissions: { request: async () => true },
  };
  return { els, doc, store, set, state, chrome, win: new Element('window') };
}

/** Lets the page's listeners (storage, visibility, focus) run. */
export const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
