#!/usr/bin/env node
// Bundles the packages on a server's start-up path (core, server) after `tsc -b`: each entry of a
// package's `exports` map becomes one ES module under dist/bundle/, with the code the entries share
// in chunks/ and each dynamic import (the HTTP transports, the 2026 leg) in its own lazy chunk.
//
// Why: Node's ES module loader costs about a millisecond per file at start-up, and the kit is
// ~125 files; bundled, a server's cold start loads a handful (docs/benchmarks.md, cold start).
//
// The input is tsc's JavaScript in dist/ (it carries the decorator metadata that esbuild cannot
// emit), so types stay tsc's: `exports[...].types` points at dist/*.d.ts, `import` at
// dist/bundle/*.js. Dependencies stay external; source maps lead back to src/.
import { rmSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';

const ROOT = resolve(import.meta.dirname, '..');
const PACKAGES = ['packages/core', 'packages/server'];
const BUNDLE_DIR = 'dist/bundle/';

/** The tsc output file each `exports` entry's bundle is built from: dist/bundle/x.js ← dist/x.js. */
function entryPoints(dir) {
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const entries = {};
  for (const [subpath, target] of Object.entries(manifest.exports)) {
    const file = typeof target === 'object' ? target.import : undefined;
    if (!file) continue;
    if (!file.startsWith(`./${BUNDLE_DIR}`)) {
      throw new Error(
        `${dir}/package.json exports["${subpath}"].import must be under ./${BUNDLE_DIR}: ${file}`,
      );
    }
    const name = file.slice(`./${BUNDLE_DIR}`.length).replace(/\.js$/, '');
    entries[name] = join(dir, 'dist', `${name}.js`);
  }
  return entries;
}

// `--clean` (npm run clean) only removes the bundles.
const cleanOnly = process.argv.includes('--clean');

/**
 * Fails the build when esbuild renamed a class to keep two modules' names apart (`Foo` → `Foo2`):
 * a class's `name` shows in schemas and messages. The fix is to rename one of them in src/.
 */
function refuseRenamedClasses(metafile) {
  const classes = new Set();
  for (const file of Object.keys(metafile.outputs).filter((f) => f.endsWith('.js'))) {
    for (const m of readFileSync(file, 'utf8').matchAll(/\bclass ([A-Za-z_$][\w$]*)/g)) classes.add(m[1]);
  }
  for (const name of classes) {
    const base = /^(.*[^\d])\d+$/.exec(name)?.[1];
    if (base && classes.has(base))
      throw new Error(`esbuild renamed class ${base} to ${name}: two modules declare it`);
  }
}

for (const pkg of PACKAGES) {
  const dir = join(ROOT, pkg);
  const outdir = join(dir, BUNDLE_DIR);
  rmSync(outdir, { recursive: true, force: true });
  if (cleanOnly) continue;
  const result = await build({
    entryPoints: entryPoints(dir),
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    chunkNames: 'chunks/[name]-[hash]',
    // No `keepNames`: it wraps every closure in a `__name()` call, on hot paths too. esbuild renames
    // a top-level name only when two modules collide; classesRenamed() refuses that for a class.
    keepNames: false,
    metafile: true,
    sourcemap: 'linked',
    legalComments: 'none',
    logLevel: 'warning',
  });
  refuseRenamedClasses(result.metafile);
}
