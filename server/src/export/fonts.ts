/**
 * The fonts the exports embed: Noto faces shipped in npm packages, one per script, read and parsed
 * once per process (parsing a face's layout tables costs up to a few hundred milliseconds, so no
 * export parses one again). Each face is loaded the first time some text needs it.
 */
import { readFileSync } from 'node:fs';
import { inflateSync } from 'node:zlib';
import { createRequire } from 'node:module';
import path from 'node:path';
import * as fontkit from 'fontkit';
import type { Script } from './scripts.ts';

const require = createRequire(import.meta.url);

/** A package's folder, found through its entry point (some packages export nothing else). */
function packageDir(name: string, entry = name): string {
  const resolved = require.resolve(entry);
  const marker = `${path.sep}node_modules${path.sep}${name.split('/').join(path.sep)}${path.sep}`;
  const at = resolved.lastIndexOf(marker);
  if (at < 0) throw new Error(`cannot locate package ${name} from ${resolved}`);
  return resolved.slice(0, at + marker.length);
}

interface FaceFiles {
  /** The family name Word and LibreOffice know the face by (DOCX runs name it). */
  family: string;
  regular: () => string;
  bold: () => string;
}

const embedpdf = (pkg: string, file: string) => () => path.join(packageDir(pkg), 'fonts', file);

/** One face per script. Noto Sans covers Latin, Greek, Cyrillic, Vietnamese and Devanagari. */
export const FACES: Record<Script, FaceFiles> = {
  latin: {
    family: 'Noto Sans',
    regular: embedpdf('@embedpdf/fonts-latin', 'NotoSans-Regular.ttf'),
    bold: embedpdf('@embedpdf/fonts-latin', 'NotoSans-Bold.ttf'),
  },
  cjk: {
    family: 'Noto Sans SC',
    regular: () => require.resolve('@expo-google-fonts/noto-sans-sc/400Regular/NotoSansSC_400Regular.ttf'),
    bold: () => require.resolve('@expo-google-fonts/noto-sans-sc/700Bold/NotoSansSC_700Bold.ttf'),
  },
  korean: {
    family: 'Noto Sans KR',
    regular: embedpdf('@embedpdf/fonts-kr', 'NotoSansKR-Regular.otf'),
    bold: embedpdf('@embedpdf/fonts-kr', 'NotoSansKR-Bold.otf'),
  },
  arabic: {
    family: 'Noto Naskh Arabic',
    regular: embedpdf('@embedpdf/fonts-arabic', 'NotoNaskhArabic-Regular.ttf'),
    bold: embedpdf('@embedpdf/fonts-arabic', 'NotoNaskhArabic-Bold.ttf'),
  },
  hebrew: {
    family: 'Noto Sans Hebrew',
    regular: embedpdf('@embedpdf/fonts-hebrew', 'NotoSansHebrew-Regular.ttf'),
    bold: embedpdf('@embedpdf/fonts-hebrew', 'NotoSansHebrew-Bold.ttf'),
  },
  bengali: {
    family: 'Noto Sans Bengali',
    regular: () => require.resolve('@fontsource/noto-sans-bengali/files/noto-sans-bengali-bengali-400-normal.woff'),
    bold: () => require.resolve('@fontsource/noto-sans-bengali/files/noto-sans-bengali-bengali-700-normal.woff'),
  },
};

/** The name a face is registered under in a PDF document: `latin`, `latin-bold`, ... */
export type FaceName = `${Script}` | `${Script}-bold`;
export const faceName = (script: Script, bold: boolean): FaceName => (bold ? `${script}-bold` : script);

/**
 * A WOFF font unpacked to the plain OpenType file it wraps. fontkit reads WOFF, but inflates a
 * table again each time the subsetter reads a glyph from it; unpacked once, the face is as fast as
 * a TTF.
 */
function woffToSfnt(woff: Buffer): Buffer {
  if (woff.toString('latin1', 0, 4) !== 'wOFF') return woff;
  const flavor = woff.readUInt32BE(4);
  const numTables = woff.readUInt16BE(12);
  const tables = Array.from({ length: numTables }, (_, i) => {
    const entry = 44 + i * 20;
    const offset = woff.readUInt32BE(entry + 4);
    const compLength = woff.readUInt32BE(entry + 8);
    const origLength = woff.readUInt32BE(entry + 12);
    const raw = woff.subarray(offset, offset + compLength);
    return {
      tag: woff.subarray(entry, entry + 4),
      checksum: woff.readUInt32BE(entry + 16),
      data: compLength < origLength ? inflateSync(raw) : raw,
    };
  });
  let entrySelector = 0;
  while (2 ** (entrySelector + 1) <= numTables) entrySelector++;
  const searchRange = 2 ** entrySelector * 16;
  const headerLength = 12 + numTables * 16;
  const total = tables.reduce((sum, table) => sum + Math.ceil(table.data.length / 4) * 4, headerLength);
  const sfnt = Buffer.alloc(total);
  sfnt.writeUInt32BE(flavor, 0);
  sfnt.writeUInt16BE(numTables, 4);
  sfnt.writeUInt16BE(searchRange, 6);
  sfnt.writeUInt16BE(entrySelector, 8);
  sfnt.writeUInt16BE(numTables * 16 - searchRange, 10);
  let offset = headerLength;
  for (const [i, table] of tables.entries()) {
    const record = 12 + i * 16;
    table.tag.copy(sfnt, record);
    sfnt.writeUInt32BE(table.checksum, record + 4);
    sfnt.writeUInt32BE(offset, record + 8);
    sfnt.writeUInt32BE(table.data.length, record + 12);
    table.data.copy(sfnt, offset);
    offset += Math.ceil(table.data.length / 4) * 4;
  }
  return sfnt;
}

const loaded = new Map<FaceName, fontkit.Font>();

/** The parsed face for a script, from the process-wide cache. */
export function face(script: Script, bold = false): fontkit.Font {
  const name = faceName(script, bold);
  let font = loaded.get(name);
  if (!font) {
    const file = bold ? FACES[script].bold() : FACES[script].regular();
    const parsed = fontkit.create(woffToSfnt(readFileSync(file)));
    if (!('layout' in parsed)) throw new Error(`${file} is a font collection, not a font`);
    font = parsed;
    loaded.set(name, font);
  }
  return font;
}

const coverage = new Map<Script, Map<number, boolean>>();

/** Whether the script's face has a glyph for a code point (the regular face stands for both weights). */
export function covers(script: Script, codePoint: number): boolean {
  if (script === 'latin' && codePoint >= 0x20 && codePoint < 0x7f) return true;
  let known = coverage.get(script);
  if (!known) coverage.set(script, (known = new Map()));
  let has = known.get(codePoint);
  if (has === undefined) {
    has = face(script).hasGlyphForCodePoint(codePoint);
    known.set(codePoint, has);
  }
  return has;
}
