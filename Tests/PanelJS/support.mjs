// What the panel's script tests share: a clock whose timers run only when a test moves it on, a
// server whose answers a test gives one request at a time, and a small stand-in for the page's
// DOM (elements, attributes, the CSS selectors the panel's modules use, bubbling events) — there
// is no jsdom here. Not a test file itself (Node's runner takes only *.test.mjs).

/** Lets every promise callback waiting now run (and the ones they queue, a few rounds deep). */
export async function flush(rounds = 10) {
  for (let i = 0; i < rounds; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** setTimeout and clearTimeout on a clock of its own: timers run when `advance` passes them. */
export class FakeClock {
  constructor() {
    this.now = 0;
    this.timers = new Map();
    this.nextId = 1;
    this.setTimeout = (run, ms) => {
      const id = this.nextId++;
      this.timers.set(id, { at: this.now + ms, run });
      return id;
    };
    this.clearTimeout = (id) => {
      this.timers.delete(id);
    };
  }

  /** How many timers wait. */
  get pending() {
    return this.timers.size;
  }

  /** Moves the clock `ms` on, running each timer that falls due (in order), and what it started. */
  async advance(ms) {
    const until = this.now + ms;
    for (;;) {
      const due = [...this.timers].filter(([, t]) => t.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.timers.delete(due[0]);
      this.now = due[1].at;
      due[1].run();
      await flush();
    }
    this.now = until;
    await flush();
  }
}

/**
 * A fetch whose requests wait until the test answers them: `requests` lists each one's url and
 * init, with `answer(status, body)` (an object is sent as JSON, a string as it is) and `fail()`
 * (the connection failed).
 */
export class FakeServer {
  constructor() {
    this.requests = [];
    this.fetch = (url, init = {}) => new Promise((resolve, reject) => {
      this.requests.push({
        url, init,
        answer: (status, body) => resolve(new Response(typeof body === 'string' ? body : JSON.stringify(body),
          { status, headers: { 'Content-Type': typeof body === 'string' ? 'text/html' : 'application/json' } })),
        fail: () => reject(new TypeError('Failed to fetch')),
      });
    });
  }

  /** The last request. */
  get last() {
    return this.requests[this.requests.length - 1];
  }
}

// A selector of the kinds the panel uses: `tag`, `#id`, `.class`, `[attr]`, `[attr=value]`,
// `[attr='value']`, `[attr^=value]`, compounded, and descendants (`form[id^=remove-] input`).
const PART = /^(?:([a-zA-Z][\w-]*)|#([\w-]+)|\.([\w-]+)|\[([\w-]+)(?:(\^?=)(?:'([^']*)'|"([^"]*)"|([^\]]*)))?\])/;

function compound(text) {
  const tests = [];
  let rest = text;
  while (rest) {
    const m = PART.exec(rest);
    if (!m) throw new Error(`the fake DOM does not read the selector '${text}'`);
    const [whole, tag, id, cls, attr, op, q1, q2, bare] = m;
    if (tag) tests.push((el) => el.tagName === tag.toUpperCase());
    if (id) tests.push((el) => el.getAttribute('id') === id);
    if (cls) tests.push((el) => el.classList.contains(cls));
    if (attr) {
      const value = q1 ?? q2 ?? bare;
      if (!op) tests.push((el) => el.hasAttribute(attr));
      if (op === '=') tests.push((el) => el.getAttribute(attr) === value);
      if (op === '^=') tests.push((el) => (el.getAttribute(attr) ?? '\u0000').startsWith(value));
    }
    rest = rest.slice(whole.length);
  }
  return (el) => tests.every((t) => t(el));
}

function matcher(selector) {
  const chain = selector.trim().split(/\s+/).map(compound);
  return (el) => {
    if (!chain[chain.length - 1](el)) return false;
    let at = el.parentNode;
    for (let i = chain.length - 2; i >= 0; i--) {
      while (at && !(at instanceof FakeElement && chain[i](at))) at = at.parentNode;
      if (!at) return false;
      at = at.parentNode;
    }
    return true;
  };
}

/** An event for `dispatchEvent`, with any fields a handler reads (`clientY`, `key`, …). */
export class FakeEvent {
  constructor(type, fields = {}) {
    Object.assign(this, fields);
    this.type = type;
    this.defaultPrevented = false;
    this.propagationStopped = false;
    this.immediatePropagationStopped = false;
  }

  preventDefault() {
    this.defaultPrevented = true;
  }

  stopPropagation() {
    this.propagationStopped = true;
  }

  stopImmediatePropagation() {
    this.propagationStopped = true;
    this.immediatePropagationStopped = true;
  }
}

/** An element: attributes (id, name and type among them), children, events, a value. */
export class FakeElement {
  constructor(tag, ownerDocument) {
    this.tagName = tag.toUpperCase();
    this.ownerDocument = ownerDocument;
    this.attributes = new Map();
    this.children = [];
    this.parentNode = null;
    this.listeners = [];
    this.value = '';
    this.hidden = false;
    this.checked = false;
    this.disabled = false;
    this.textContent = '';
    this.box = { top: 0, height: 0 };
    const classes = () => new Set((this.getAttribute('class') ?? '').split(/\s+/).filter(Boolean));
    this.classList = {
      contains: (c) => classes().has(c),
      add: (c) => this.setAttribute('class', [...classes().add(c)].join(' ')),
      remove: (c) => {
        const set = classes();
        set.delete(c);
        this.setAttribute('class', [...set].join(' '));
      },
    };
  }

  get id() { return this.getAttribute('id') ?? ''; }
  set id(v) { this.setAttribute('id', v); }
  get name() { return this.getAttribute('name') ?? ''; }
  set name(v) { this.setAttribute('name', v); }
  get type() { return this.getAttribute('type') ?? (this.tagName === 'INPUT' ? 'text' : ''); }
  set type(v) { this.setAttribute('type', v); }
  get className() { return this.getAttribute('class') ?? ''; }
  set className(v) { this.setAttribute('class', v); }

  getAttribute(name) { return this.attributes.has(name) ? this.attributes.get(name) : null; }
  setAttribute(name, value) { this.attributes.set(name, String(value)); }
  hasAttribute(name) { return this.attributes.has(name); }
  removeAttribute(name) { this.attributes.delete(name); }

  appendChild(child) {
    child.remove();
    child.parentNode = this;
    this.children.push(child);
    return child;
  }

  append(...nodes) {
    for (const node of nodes) {
      if (typeof node === 'string') {
        this.textContent += node;
      } else {
        this.appendChild(node);
      }
    }
  }

  insertBefore(child, reference) {
    if (!reference) return this.appendChild(child);
    child.remove();
    child.parentNode = this;
    this.children.splice(this.children.indexOf(reference), 0, child);
    return child;
  }

  remove() {
    if (!this.parentNode) return;
    const siblings = this.parentNode.children;
    siblings.splice(siblings.indexOf(this), 1);
    this.parentNode = null;
  }

  get nextSibling() {
    if (!this.parentNode) return null;
    const siblings = this.parentNode.children;
    return siblings[siblings.indexOf(this) + 1] ?? null;
  }

  /** Every element under this one, in document order. */
  descendants() {
    return this.children.flatMap((c) => [c, ...c.descendants()]);
  }

  matches(selector) { return matcher(selector)(this); }

  closest(selector) {
    const test = matcher(selector);
    for (let at = this; at instanceof FakeElement; at = at.parentNode) if (test(at)) return at;
    return null;
  }

  querySelectorAll(selector) {
    const test = matcher(selector);
    return this.descendants().filter(test);
  }

  querySelector(selector) { return this.querySelectorAll(selector)[0] ?? null; }

  getElementById(id) { return this.descendants().find((el) => el.getAttribute('id') === id) ?? null; }

  addEventListener(type, listener) { this.listeners.push({ type, listener }); }

  /** Runs the listeners of this element, then of each parent (bubbling), as the browser would. */
  dispatchEvent(event) {
    event.target ??= this;
    for (let at = this; at; at = at.parentNode) {
      for (const { type, listener } of [...at.listeners]) {
        if (type !== event.type) continue;
        listener.call(at, event);
        if (event.immediatePropagationStopped) break;
      }
      if (event.propagationStopped) break;
    }
    return !event.defaultPrevented;
  }

  focus() { this.ownerDocument.activeElement = this; }

  submit() { this.ownerDocument.submitted.push(this); }

  getBoundingClientRect() { return this.box; }
}

/** A page: `body`, `createElement`, `getElementById`, and the forms `submit()` sent (`submitted`). */
export class FakeDocument extends FakeElement {
  constructor() {
    super('#document', null);
    this.ownerDocument = this;
    this.body = this.appendChild(new FakeElement('body', this));
    this.activeElement = this.body;
    this.submitted = [];
  }

  createElement(tag) { return new FakeElement(tag, this); }

  /**
   * Makes an element: `attributes` set as attributes (id, name, type, data-…), then `children`.
   * @returns {FakeElement}
   */
  make(tag, attributes = {}, ...children) {
    const el = this.createElement(tag);
    for (const [name, value] of Object.entries(attributes)) el.setAttribute(name, value);
    for (const child of children) el.appendChild(child);
    return el;
  }
}

/** The fields of a form the fake page sent, as [name, value] pairs. */
export const fieldsOf = (form) => form.querySelectorAll('input').map((i) => [i.name, i.value]);
