// The order of a tour's stops (Sources/TrailPackPanel/Resources/js/ordering.js): where a dragged
// stop goes, what the drop sends (the stops' numbers in their new order, with the page's token and
// revision, the way the Up and Down buttons send theirs), and which button has the keyboard after
// Up or Down — on a small stand-in for the page, under Node's own test runner.
import { describe, test, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import {
  dropsAfter, focusIds, orderField, startOrdering,
} from '../../Sources/TrailPackPanel/Resources/js/ordering.js';
import { FakeDocument, FakeEvent, fieldsOf, flush } from './support.mjs';

describe('the pure parts', () => {
  test('a stop dragged over another goes after it below its middle, before it above', () => {
    const box = { top: 100, height: 40 };
    assert.equal(dropsAfter(119, box), false);
    assert.equal(dropsAfter(120, box), false, 'the middle itself: before');
    assert.equal(dropsAfter(121, box), true);
    assert.equal(dropsAfter(500, box), true);
  });

  test('the order field: the numbers as the page numbered them, in their new order', () => {
    assert.equal(orderField(['3', '1', '2']), '3,1,2');
    assert.equal(orderField(['1']), '1');
  });

  test('after Up or Down the keyboard goes to the button named, else its twin', () => {
    assert.deepEqual(focusIds('up-3'), ['up-3', 'down-3']);
    assert.deepEqual(focusIds('down-12'), ['down-12', 'up-12']);
    assert.deepEqual(focusIds('add-name'), ['add-name', 'add-name']);
  });
});

describe('dragging a stop in the list', () => {
  let doc;
  let list;
  const items = () => list.querySelectorAll('li').map((li) => li.getAttribute('data-number'));
  const item = (n) => list.querySelector(`li[data-number=${n}]`);

  beforeEach(() => {
    doc = new FakeDocument();
    globalThis.document = doc;
    doc.body.appendChild(doc.make('div', { id: 'tour-map', 'data-csrf': 'tok', 'data-revision': 'rev-7' }));
    list = doc.body.appendChild(doc.make('ol', { id: 'stop-list', 'data-order-action': '/drafts/s/t/order' }));
    for (const n of [1, 2, 3]) {
      const li = doc.make('li', { id: `stop-${n}`, 'data-number': String(n), draggable: 'true' }, doc.make('a'));
      li.box = { top: 40 * (n - 1), height: 40 };
      list.appendChild(li);
    }
    startOrdering(list);
  });

  afterEach(() => {
    delete globalThis.document;
  });

  /** Drags stop `from` over stop `over` at `y`. */
  function dragOver(from, over, y) {
    const data = {};
    item(from).children[0].dispatchEvent(new FakeEvent('dragstart', {
      dataTransfer: { setData: (type, value) => { data[type] = value; } },
    }));
    const event = new FakeEvent('dragover', { clientY: y });
    item(over).dispatchEvent(event);
    return { data, event };
  }

  test('stop 3 dragged above the middle of stop 1 goes first; the drop sends 3,1,2 with the page\'s token and revision', async () => {
    const { data, event } = dragOver(3, 1, 10);
    assert.equal(data['text/plain'], 'stop-3');
    assert.equal(event.defaultPrevented, true, 'the list takes the drop');
    assert.ok(item(3).classList.contains('tp-dragging'));
    assert.deepEqual(items(), ['3', '1', '2']);
    const drop = new FakeEvent('drop');
    list.dispatchEvent(drop);
    assert.equal(drop.defaultPrevented, true);
    await flush();
    assert.equal(doc.submitted.length, 1);
    const form = doc.submitted[0];
    assert.equal(form.method, 'post');
    assert.equal(form.action, '/drafts/s/t/order');
    assert.deepEqual(fieldsOf(form), [['_csrf', 'tok'], ['revision', 'rev-7'], ['order', '3,1,2']]);
    item(3).dispatchEvent(new FakeEvent('dragend'));
    assert.equal(item(3).classList.contains('tp-dragging'), false);
  });

  test('stop 1 dragged below the middle of stop 2 goes after it: 2,1,3', async () => {
    dragOver(1, 2, 70);
    assert.deepEqual(items(), ['2', '1', '3']);
    list.dispatchEvent(new FakeEvent('drop'));
    await flush();
    assert.deepEqual(fieldsOf(doc.submitted[0]).at(-1), ['order', '2,1,3']);
  });

  test('a stop over itself stays; below the last one it goes last', () => {
    dragOver(2, 2, 50);
    assert.deepEqual(items(), ['1', '2', '3']);
    dragOver(1, 3, 119);
    assert.deepEqual(items(), ['2', '3', '1']);
  });
});
