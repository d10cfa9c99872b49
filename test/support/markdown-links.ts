import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/** A link of a Markdown file whose target is in the repository, not on the web. */
export interface RelativeLink {
  /** 1-based line of the link. */
  readonly line: number;
  /** The path part ('' for a link to an anchor of the same file). */
  readonly path: string;
  /** The anchor without its '#' (undefined when there is none). */
  readonly anchor?: string;
}

const FENCE = /^\s*(```|~~~)/;
// [text](target) and ![alt](target); the target may carry a "title".
const LINK = /!?\[[^\]]*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g;
const HEADING = /^#{1,6}\s+(.*?)\s*#*\s*$/;
const HTML_ANCHOR = /<a\s+(?:name|id)="([^"]+)"/g;

/** Lines outside fenced code blocks, with their 1-based numbers. */
function proseLines(markdown: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let fenced = false;
  markdown.split('\n').forEach((text, i) => {
    if (FENCE.test(text)) fenced = !fenced;
    else if (!fenced) out.push({ line: i + 1, text });
  });
  return out;
}

/** Every link to a file or an anchor of the repository; links inside code are examples, not links. */
export function relativeLinks(markdown: string): RelativeLink[] {
  const links: RelativeLink[] = [];
  for (const { line, text } of proseLines(markdown)) {
    const prose = text.replace(/`[^`]*`/g, '');
    for (const match of prose.matchAll(LINK)) {
      const target = match[1];
      if (target === '' || /^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const hash = target.indexOf('#');
      const path = decodeURI(hash < 0 ? target : target.slice(0, hash));
      links.push(hash < 0 ? { line, path } : { line, path, anchor: target.slice(hash + 1) });
    }
  }
  return links;
}

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .toLowerCase();
  return text.replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '').replace(/\s/g, '-');
}

/** The anchors a Markdown file offers: its headings (a repeated one gets -1, -2, ...) and `<a id>`s. */
export function anchors(markdown: string): Set<string> {
  const found = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of proseLines(markdown)) {
    const heading = HEADING.exec(text);
    if (heading !== null) {
      const base = slug(heading[1]);
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      found.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const match of text.matchAll(HTML_ANCHOR)) found.add(match[1]);
  }
  return found;
}

/** One line per link of `file` (relative to `root`) that leads nowhere. */
export function brokenLinks(root: string, file: string): string[] {
  const source = join(root, file);
  const broken: string[] = [];
  for (const link of relativeLinks(readFileSync(source, 'utf8'))) {
    const target = link.path === '' ? source : join(dirname(source), link.path);
    const shown = `${file}:${link.line}: ${link.path}${link.anchor === undefined ? '' : `#${link.anchor}`}`;
    if (relative(root, target).startsWith('..')) broken.push(`${shown}: outside the repository`);
    else if (!existsSync(target)) broken.push(`${shown}: no such file`);
    else if (link.anchor !== undefined && target.endsWith('.md') && statSync(target).isFile()) {
      if (!anchors(readFileSync(target, 'utf8')).has(link.anchor)) broken.push(`${shown}: no such heading`);
    }
  }
  return broken;
}
