// Checks the API reference that `typedoc` wrote to docs/api: every relative link (pages, media/
// copies of the guides, assets) must name a file that exists. Exits 1 and lists the broken ones.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

const root = process.argv[2] ?? 'docs/api';
const broken = [];
let links = 0;
for (const entry of readdirSync(root, { recursive: true })) {
  const page = join(root, String(entry));
  if (!page.endsWith('.html')) continue;
  const html = readFileSync(page, 'utf8');
  for (const [, href] of html.matchAll(/href="([^"#?]+)/g)) {
    if (/^[a-z]+:/i.test(href) || href.startsWith('//')) continue;
    links += 1;
    const target = normalize(join(dirname(page), decodeURIComponent(href)));
    if (!existsSync(target)) broken.push(`${page}: ${href}`);
  }
}
if (links === 0) {
  console.error(`no links found under ${root}: run typedoc first`);
  process.exit(1);
}
if (broken.length > 0) {
  console.error(`${broken.length} broken link(s) in ${root}:\n${broken.slice(0, 50).join('\n')}`);
  process.exit(1);
}
console.log(`${root}: ${links} relative links, none broken`);
