/**
 * The fonts the exports embed: Noto faces shipped in npm packages, one per script, read and parsed
 * once per process (parsing a face's layout tables costs up to a few hundred milliseconds, so no
 * export parses one again). Each face is loaded the first time some text needs it.
 */
import { readFileSync } from 'node:fs';
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

const loaded = new Map<FaceName, fontkit.Font>();

/** The parsed face for a script, from the process-wide cache. */
export function face(script: Script, bold = false): fontkit.Font {
  const name = faceName(script, bold);
  let font = loaded.get(name);
  if (!font) {
    const file = bold ? FACES[script].bold() : FACES[script].regular();
    const parsed = fontkit.create(readFileSync(file));
    if (!('layout' in parsed)) throw new Error(`${file} is a font collection, not a font`);
    font = parsed;
    loaded.set(name, font);
  }
  return font;
}

/** Whether the script's face has a glyph for a code point (the regular face stands for both weights). */
export function covers(script: Script, codePoint: number): boolean {
  return face(script).hasGlyphForCodePoint(codePoint);
}

const widthCache = new Map<string, number>();
const WIDTH_CACHE_LIMIT = 200_000;

/**
 * Advance width of `text` set in a face, in thousandths of the font size (multiply by size / 1000).
 * Right-to-left text is measured as one shaped run; other text word by word, as the PDF sets it.
 */
export function advanceOf(script: Script, bold: boolean, text: string): number {
  const key = `${faceName(script, bold)}\u0000${text}`;
  let width = widthCache.get(key);
  if (width === undefined) {
    const font = face(script, bold);
    width = (font.layout(text).advanceWidth * 1000) / font.unitsPerEm;
    if (widthCache.size >= WIDTH_CACHE_LIMIT) widthCache.clear();
    widthCache.set(key, width);
  }
  return width;
}

/** Loads every face now (a server may call this at start so the first export is not the slow one). */
export function preloadFaces(): void {
  for (const script of Object.keys(FACES) as Script[]) {
    face(script, false);
    face(script, true);
  }
}
