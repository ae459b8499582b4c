// Runs memgate serve against a real browser: Debian's chromium, headless,
// loads page.js (bundled by esbuild with the npm clients it imports) from
// two origins of its own, one that memgate serve allows with --cors-origin
// and one it does not, and judges what each page reports. Run by
// scripts/it-browser.sh, which builds memgate and passes:
//
//   MEMGATE_BIN   the memgate binary
//   MEMGATE_DB    its store, with the two keys below
//   MEMGATE_KEY   an agent key acting for user alice
//   MEMGATE_KEY_OTHER  an agent key acting for user bob
//   CHROMIUM      the browser to run
//
// Everything listens on 127.0.0.1, on ports the system picks, and is
// stopped on exit.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";

const bin = need("MEMGATE_BIN");
const db = need("MEMGATE_DB");
const aliceKey = need("MEMGATE_KEY");
const bobKey = need("MEMGATE_KEY_OTHER");
const chromium = need("CHROMIUM");

function need(name) {
  const v = process.env[name];
  if (!v) {
    console.error(`test.mjs: ${name} is not set (run scripts/it-browser.sh)`);
    process.exit(2);
  }
  return v;
}

// Everything this test starts; each browser runs in a process group of its
// own, so that its helpers go with it.
const children = [];
const scratch = mkdtempSync(join(tmpdir(), "memgate-it-browser-"));
function kill(c) {
  if (c.exitCode !== null || c.signalCode !== null) return;
  try {
    if (c.group) process.kill(-c.pid, "SIGKILL");
    else c.kill("SIGTERM");
  } catch {}
}
process.on("exit", () => {
  children.forEach(kill);
  rmSync(scratch, { recursive: true, force: true });
});
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(sig, () => process.exit(130));

// The page's bundle: browser code, with mem0ai's Node-only branches (it
// reads ~/.mem0 when it runs in Node) left out.
const bundle = await build({
  entryPoints: [new URL("page.js", import.meta.url).pathname],
  bundle: true,
  format: "esm",
  platform: "browser",
  target: "es2022",
  external: ["fs", "path", "os", "crypto"],
  write: false,
  logLevel: "error",
});
const js = bundle.outputFiles[0].contents;
const html = readFileSync(new URL("index.html", import.meta.url));

// origin serves the page and takes its report; it resolves to the
// origin's URL and a function that waits for the next report.
function origin() {
  let deliver = null;
  const reports = [];
  const srv = createServer((req, res) => {
    const path = new URL(req.url, "http://x").pathname;
    if (req.method === "GET" && (path === "/" || path === "/index.html")) {
      res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" }).end(html);
    } else if (req.method === "GET" && path === "/bundle.js") {
      res.writeHead(200, { "Content-Type": "text/javascript; charset=utf-8" }).end(js);
    } else if (req.method === "POST" && path === "/report") {
      let body = "";
      req.on("data", (d) => (body += d)).on("end", () => {
        res.writeHead(204).end();
        reports.push(JSON.parse(body));
        deliver?.();
      });
    } else {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) =>
    srv.listen(0, "127.0.0.1", () => {
      resolve({
        url: `http://127.0.0.1:${srv.address().port}`,
        next: () =>
          new Promise((ok) => {
            if (reports.length) return ok(reports.shift());
            deliver = () => ok(reports.shift());
          }),
      });
    }),
  );
}

const allowed = await origin();
const other = await origin();

// memgate serve, letting only the first origin's pages in.
const serve = spawn(bin, ["--db", db, "serve", "--addr", "127.0.0.1:0", "--cors-origin", allowed.url], {
  env: { ...process.env, MEMGATE_STORE: "", MEMGATE_INDEX: "", MEMGATE_GATE: "" },
  stdio: ["ignore", "ignore", "pipe"],
});
children.push(serve);
let serveLog = "";
const api = await new Promise((resolve, reject) => {
  serve.stderr.on("data", (d) => {
    serveLog += d;
    const m = serveLog.match(/on (http:\/\/127\.0\.0\.1:\d+)/);
    if (m) resolve(m[1]);
  });
  serve.on("exit", (code) => reject(new Error(`memgate serve exited (${code}):\n${serveLog}`)));
});
console.log(`it-browser: memgate serve on ${api}, pages from ${allowed.url} (allowed) and ${other.url}`);

// visit opens a page in a fresh headless chromium and returns its report.
// The browser resolves no name but 127.0.0.1 (Debian's chromium would
// otherwise reach Google's servers at start), and keeps its profile, cache
// and crash reports in the scratch directory.
async function visit(site, expect) {
  const cfg = encodeURIComponent(JSON.stringify({ api, alice: aliceKey, bob: bobKey, expect }));
  const home = mkdtempSync(join(scratch, "home-"));
  const args = ["--headless", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
    "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-breakpad",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
    `--user-data-dir=${join(home, "profile")}`, `${site.url}/#${cfg}`];
  if (process.getuid?.() === 0) args.unshift("--no-sandbox"); // chromium refuses root otherwise
  const browser = spawn(chromium, args, {
    stdio: ["ignore", "ignore", "pipe"],
    detached: true, // a process group of its own
    env: { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, ".config"), XDG_CACHE_HOME: join(home, ".cache") },
  });
  browser.group = true;
  children.push(browser);
  let log = "";
  browser.stderr.on("data", (d) => (log += d));
  const exited = new Promise((resolve) => browser.on("exit", resolve));
  let timer;
  const failure = Promise.race([
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no report from the ${expect} page in 60 s; chromium said:\n${log.slice(-3000)}`)), 60_000);
    }),
    exited.then((code) => {
      throw new Error(`chromium exited (${code}) before the ${expect} page reported; it said:\n${log.slice(-3000)}`);
    }),
  ]);
  try {
    return await Promise.race([site.next(), failure]);
  } finally {
    clearTimeout(timer);
    kill(browser);
    await exited;
  }
}

let failed = 0;
let step = 0;
function judge(report, want) {
  for (const c of report.checks) {
    step++;
    console.log(`${c.ok ? "ok" : "not ok"} ${step} - ${report.expect} page: ${c.name}${c.detail ? ` (${c.detail})` : ""}`);
    if (!c.ok) failed++;
  }
  try {
    assert.equal(report.checks.length, want, `${report.expect} page: ${report.checks.length} checks ran, want ${want}`);
    assert.deepEqual(report.foreign, [], `${report.expect} page: requests left for ${report.foreign}`);
  } catch (e) {
    console.log(`not ok - ${e.message}`);
    failed++;
  }
}

const good = await visit(allowed, "allowed");
judge(good, 6);
const bad = await visit(other, "blocked");
judge(bad, 2);

// The other origin's write never reached the store: the browser sent no
// request the preflight did not allow.
step++;
const r = await fetch(`${api}/v1/memories?limit=1000`, { headers: { Authorization: `Bearer ${aliceKey}` } });
const listed = JSON.stringify(await r.json());
const leaked = !r.ok || listed.includes(`${bad.mark}:`) || !listed.includes(`${good.mark}:`);
console.log(`${leaked ? "not ok" : "ok"} ${step} - the store holds the allowed page's memories and none from the other origin`);
if (leaked) failed++;

console.log(failed ? `it-browser: ${failed} failed` : `it-browser: all ${step} checks passed`);
process.exit(failed ? 1 : 0);
