// The control panel's "preview as a visitor" of a version without its own offline map: the site's
// region map is asked of the panel (through the reviewer's session) and drawn under the tour, in the
// preview only. `previewBase` takes only a well-formed answer. Run with `node --test Tests/VisitorAppJS/`.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';

import { previewBase } from '../../Sources/TrailPackVisitor/app/js/tour.js';

const manifest = { site: { id: 'willamette-sweet-home' } };
const answering = (status, body, asked = []) => async (url, init) => {
  asked.push([url, init]);
  return new Response(typeof body === 'string' ? body : JSON.stringify(body), { status });
};

describe('previewBase', () => {
  test("the site's region map, asked of the panel with the session's cookie", async () => {
    const asked = [];
    const base = await previewBase(manifest, answering(200, {
      message: "the site's region map", tiles: '/sites/willamette-sweet-home/tiles/{z}/{x}/{y}', minZoom: 8, maxZoom: 13,
    }, asked));
    assert.deepEqual(base, { tiles: '/sites/willamette-sweet-home/tiles/{z}/{x}/{y}', minZoom: 8, maxZoom: 13 });
    assert.equal(asked.length, 1);
    assert.equal(asked[0][0], '/sites/willamette-sweet-home/map');
    assert.equal(asked[0][1].credentials, 'same-origin');
  });

  test('a site id is put in the address as one path segment', async () => {
    const asked = [];
    await previewBase({ site: { id: 'a/../b' } }, answering(404, {}, asked));
    assert.equal(asked[0][0], '/sites/a%2F..%2Fb/map');
  });

  test('none: no site, no region map, a refusal, a page that is not the answer, a broken connection', async () => {
    assert.equal(await previewBase({}, answering(200, {})), null);
    assert.equal(await previewBase(manifest, answering(404, { message: 'the site has no region map' })), null);
    assert.equal(await previewBase(manifest, answering(401, { message: 'sign in' })), null);
    assert.equal(await previewBase(manifest, answering(200, '<html>Sign in to the Wi-Fi</html>')), null);
    assert.equal(await previewBase(manifest, async () => { throw new TypeError('Failed to fetch'); }), null);
  });

  test('an answer out of shape is not drawn: tiles elsewhere, zooms missing or upside down', async () => {
    const bad = [
      { tiles: 'https://elsewhere.example/{z}/{x}/{y}', minZoom: 8, maxZoom: 13 },
      { tiles: '/sites/s/tiles/{z}/{x}/{y}', minZoom: 8 },
      { tiles: '/sites/s/tiles/{z}/{x}/{y}', minZoom: 13, maxZoom: 8 },
      { tiles: '/sites/s/tiles/{z}/{x}/{y}', minZoom: -1, maxZoom: 40 },
    ];
    for (const body of bad) assert.equal(await previewBase(manifest, answering(200, body)), null, JSON.stringify(body));
  });
});
