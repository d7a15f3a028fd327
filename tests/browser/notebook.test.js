#!/usr/bin/env node
// The Python package's notebook display (Profile._repr_html_): the viewer inside an iframe
// whose document is the page itself (srcdoc), sandboxed to scripts only, as Jupyter shows an
// output cell. The viewer must start, draw and work there (no storage, opaque origin, about:srcdoc
// URL), with hostile names still plain text, and no network request.
//
//   node notebook.test.js --flamefold build/flamefold --tmp DIR --python /usr/bin/python3 --pythonpath build/python
// Exits 77 (ctest: skipped) only when no chromium is installed.
'use strict';
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const { setup, run, assert } = require('./harness');

const { args, tmp } = setup();

// A notebook-like host page: the cell's HTML as Jupyter inserts it. The host marks itself
// ready at once (the harness waits for that); the viewer inside is awaited in its frame.
const folded = path.join(tmp, 'notebook.folded');
fs.writeFileSync(folded, [
  'main;run;compute;matmul 40',
  'main;run;io;read 15',
  '</script><img src=x onerror=alert(1)>;"><svg onload=alert(1)> 5',
].join('\n') + '\n');
const cell = execFileSync(args.python, ['-c', [
  'import sys, flamefold',
  'sys.stdout.write(flamefold.load(sys.argv[1])._repr_html_())',
].join('\n'), folded], { env: { ...process.env, PYTHONPATH: args.pythonpath } }).toString();
const host = path.join(tmp, 'notebook-host.html');
fs.writeFileSync(host, '<!doctype html><html><head><meta charset="utf-8"><title>notebook</title></head><body>' +
  '<div class="output_html">' + cell + '</div>' +
  '<script>document.documentElement.dataset.ready = "true";</script></body></html>');

run(async ({ open, test }) => {
  await test('the viewer runs inside the sandboxed srcdoc iframe', async () => {
    const page = await open(host);
    const sandbox = await page.getAttribute('iframe.flamefold', 'sandbox');
    assert(sandbox === 'allow-scripts', 'sandbox is ' + sandbox);
    const frame = page.frames().find((f) => f !== page.mainFrame());
    assert(frame, 'no iframe');
    await frame.waitForFunction(() => document.documentElement.dataset.ready, null, { timeout: 60000 });
    const state = await frame.evaluate(() => [document.documentElement.dataset.ready, window.flamefold && window.flamefold.error]);
    assert(state[0] === 'true', 'viewer failed in the iframe: ' + state[1]);
    // Opaque origin: the frame cannot reach the notebook.
    const origin = await frame.evaluate(() => window.origin);
    assert(origin === 'null', 'the frame has origin ' + origin);
    const box = await frame.evaluate(() => window.flamefold.find('matmul'));
    assert(box && box.visible, 'matmul is not drawn');
    // Hostile names stay text: no element made from them, no dialog (the harness fails on one).
    const injected = await frame.evaluate(() => document.querySelectorAll('img[src="x"], svg[onload]').length);
    assert(injected === 0, 'a name became markup');
    // Using it: a click zooms (the URL-fragment state must not break in about:srcdoc).
    const canvas = await frame.$('#canvas');
    const c = await canvas.boundingBox();
    await page.mouse.click(c.x + box.x + Math.min(box.w / 2, 40), c.y + box.y + box.h / 2);
    await frame.waitForTimeout(200);
    const after = await frame.evaluate(() => window.flamefold.find('matmul'));
    assert(after && after.w > box.w, 'clicking matmul did not zoom to it');
  });
});
