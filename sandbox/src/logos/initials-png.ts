import { crc32, deflateSync } from 'node:zlib';

/**
 * Logos the sandbox draws itself: a name's initials in white on a colour of its own, as a PNG (the
 * platform's logos are PNGs), and the plain placeholder the platform serves when it has no logo.
 * No image library: a 5×7 bitmap font, scaled, and the few bytes of a PNG file.
 */

const SIZE = 64;

/** Each glyph is 7 rows of 5 pixels, one hex digit pair per row (bit 4 is the left pixel). */
const FONT: Record<string, string> = {
  A: '0e11111f111111',
  B: '1e11111e11111e',
  C: '0e11101010110e',
  D: '1e11111111111e',
  E: '1f10101e10101f',
  F: '1f10101e101010',
  G: '0e11101711110f',
  H: '1111111f111111',
  I: '0e04040404040e',
  J: '0702020202120c',
  K: '11121418141211',
  L: '1010101010101f',
  M: '111b1515111111',
  N: '11111915131111',
  O: '0e11111111110e',
  P: '1e11111e101010',
  Q: '0e11111115120d',
  R: '1e11111e141211',
  S: '0f10100e01011e',
  T: '1f040404040404',
  U: '1111111111110e',
  V: '11111111110a04',
  W: '1111111515150a',
  X: '11110a040a1111',
  Y: '1111110a040404',
  Z: '1f01020408101f',
  '0': '0e11131519110e',
  '1': '040c040404040e',
  '2': '0e11010204081f',
  '3': '1f02040201110e',
  '4': '02060a121f0202',
  '5': '1f101e0101110e',
  '6': '0608101e11110e',
  '7': '1f010204080808',
  '8': '0e11110e11110e',
  '9': '0e11110f01020c',
  '&': '0c12140815120d',
};

/** Colours with white text at a contrast ratio of 4.5 or more. */
const PALETTE: ReadonlyArray<readonly [number, number, number]> = [
  [11, 95, 255],
  [0, 121, 107],
  [123, 31, 162],
  [194, 24, 91],
  [173, 20, 87],
  [69, 90, 100],
  [46, 125, 50],
  [191, 54, 12],
  [21, 101, 192],
  [106, 27, 154],
  [0, 105, 92],
  [78, 52, 46],
];
const PLACEHOLDER_BACKGROUND = [226, 230, 236] as const;
const PLACEHOLDER_MARK = [154, 165, 184] as const;

/**
 * Up to three characters that stand for `name`: an acronym as it is (ANZ), the first two letters of
 * one word (Westpac: WE), else the first letters of two words (New World: NW).
 */
export function initialsOf(name: string): string {
  const words = name
    .toUpperCase()
    .split(/[^A-Z0-9&]+/)
    .filter((word) => word !== '' && word !== 'THE');
  const first = words[0] ?? '?';
  if (words.length === 1 && first.length <= 3 && name.includes(first)) return first;
  if (words.length === 1) return first.slice(0, 2);
  return words
    .slice(0, 2)
    .map((word) => word[0])
    .join('');
}

/**
 * A 64×64 PNG of `name`'s initials on a colour chosen from them. Names with the same initials
 * differ by `variant` (0, 1, 2…), which moves each to the next colour: up to 12 stay distinct.
 */
export function initialsPng(name: string, variant = 0): Buffer {
  const text = initialsOf(name);
  const initials = [...text].filter((character) => FONT[character] !== undefined);
  const pixels = canvas(PALETTE[(hashOf(text) + variant) % PALETTE.length]!);
  const scale = initials.length > 2 ? 3 : 4;
  const gap = scale;
  const width = initials.length * 5 * scale + (initials.length - 1) * gap;
  let left = Math.floor((SIZE - width) / 2);
  const top = Math.floor((SIZE - 7 * scale) / 2);
  for (const character of initials) {
    drawGlyph(pixels, FONT[character]!, left, top, scale);
    left += 5 * scale + gap;
  }
  return encodePng(pixels);
}

/** The platform's "no logo" image: a plain grey tile with a dot, the same for every merchant that has none. */
export function placeholderPng(): Buffer {
  const pixels = canvas(PLACEHOLDER_BACKGROUND);
  for (let y = 0; y < SIZE; y += 1)
    for (let x = 0; x < SIZE; x += 1)
      if ((x - 31.5) ** 2 + (y - 31.5) ** 2 <= 100) setPixel(pixels, x, y, PLACEHOLDER_MARK);
  return encodePng(pixels);
}

function hashOf(text: string): number {
  let hash = 0;
  for (const character of text) hash = (hash * 31 + character.charCodeAt(0)) >>> 0;
  return hash;
}

/** One row per line: a filter byte (0, none) then RGB pixels, as PNG's image data wants them. */
function canvas(colour: readonly [number, number, number]): Buffer {
  const pixels = Buffer.alloc(SIZE * (1 + SIZE * 3));
  for (let y = 0; y < SIZE; y += 1) for (let x = 0; x < SIZE; x += 1) setPixel(pixels, x, y, colour);
  return pixels;
}

function setPixel(pixels: Buffer, x: number, y: number, [r, g, b]: readonly [number, number, number]): void {
  const at = y * (1 + SIZE * 3) + 1 + x * 3;
  pixels[at] = r;
  pixels[at + 1] = g;
  pixels[at + 2] = b;
}

function drawGlyph(pixels: Buffer, rows: string, left: number, top: number, scale: number): void {
  for (let row = 0; row < 7; row += 1) {
    const line = Number.parseInt(rows.slice(row * 2, row * 2 + 2), 16);
    for (let column = 0; column < 5; column += 1) {
      if ((line & (0x10 >> column)) === 0) continue;
      for (let dy = 0; dy < scale; dy += 1)
        for (let dx = 0; dx < scale; dx += 1)
          setPixel(pixels, left + column * scale + dx, top + row * scale + dy, [255, 255, 255]);
    }
  }
}

function chunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A PNG file: signature, header (64×64, 8-bit RGB), the deflated rows, end. */
function encodePng(pixels: Buffer): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(SIZE, 0);
  header.writeUInt32BE(SIZE, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(pixels)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
