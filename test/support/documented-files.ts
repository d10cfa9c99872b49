import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The files of a Markdown text: a fenced block right after `<!-- file: <path> -->`, by path.
 * docs/plugins.md writes its minimal plugin so; test/docs/plugin-doc.test.ts and the package
 * suite (test/e2e/package/install.test.ts) build it from that text.
 */
export function documentedFiles(markdown: string): Map<string, string> {
  const files = new Map<string, string>();
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const marker = /^<!--\s*file:\s*(\S+)\s*-->\s*$/.exec(lines[i]);
    if (marker === null) continue;
    let open = i + 1;
    while (lines[open]?.trim() === '') open++;
    if (!/^```\w*\s*$/.test(lines[open] ?? '')) throw new Error(`line ${i + 1}: no code block after the file marker`);
    const close = lines.findIndex((line, j) => j > open && /^```\s*$/.test(line));
    files.set(marker[1], `${lines.slice(open + 1, close).join('\n')}\n`);
    i = close;
  }
  return files;
}

/** Writes `files` (path to text, as documentedFiles returns them) under `dir`. */
export function writeFiles(dir: string, files: ReadonlyMap<string, string>): void {
  for (const [path, text] of files) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}
