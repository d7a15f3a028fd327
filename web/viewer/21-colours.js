// ---------------------------------------------------------------- colours
function hash32(s) {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 16777619); }
  h ^= h >>> 15; h = Math.imul(h, 2246822507); h ^= h >>> 13;
  return h >>> 0;
}
// [hue, hue range, saturation, lightness] per category; unknown ones get a hashed hue.
const CAT_STYLE = {
  '': [8, 42, 78, 60],
  native: [8, 42, 78, 60], cpu: [8, 42, 78, 60],
  python: [205, 30, 62, 62], python_function: [205, 30, 62, 62], python_framework: [225, 25, 55, 66],
  cpu_op: [28, 22, 85, 58], operator: [28, 22, 85, 58], aten: [28, 22, 85, 58],
  user_annotation: [268, 24, 52, 68], nvtx: [268, 24, 52, 68], gpu_user_annotation: [292, 20, 48, 68],
  cuda_runtime: [48, 14, 85, 55], cuda_driver: [40, 12, 80, 55], runtime: [48, 14, 85, 55], cann: [320, 20, 55, 65],
  kernel: [112, 34, 52, 52], memcpy: [172, 14, 55, 48], memset: [190, 14, 55, 52],
  process: [220, 0, 10, 64], thread: [220, 0, 12, 70], rank: [220, 0, 14, 60], device: [220, 0, 14, 60],
  unknown: [30, 10, 10, 62],
};
function catStyle(cat) {
  const k = cat.toLowerCase();
  if (CAT_STYLE[k]) return CAT_STYLE[k];
  return [hash32(k) % 360, 24, 60, 62];
}
const dark = () => window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)').matches;
function frameColor(name, cat) {
  const [h, range, s, l] = catStyle(cat);
  const x = hash32(name);
  const hue = (h + ((x & 0xffff) / 65535) * range + 360) % 360;
  const light = l + (((x >>> 16) & 0xff) / 255 - 0.5) * 12 - (dark() ? 8 : 0);
  return hslHex(hue, s, light);
}
// Hex colours: the canvas parses a fillStyle string on every assignment, and '#rrggbb'
// is the cheapest form to parse.
function hslHex(h, s, l) {
  s /= 100; l /= 100;
  const k = (n) => (n + h / 30) % 12, a = s * Math.min(l, 1 - l);
  const c = (n) => Math.round(255 * (l - a * Math.max(-1, Math.min(k(n) - 3, 9 - k(n), 1)))).toString(16).padStart(2, '0');
  return '#' + c(0) + c(8) + c(4);
}
function swatch(cat) {
  const [h, range, s, l] = catStyle(cat);
  return `hsl(${(h + range / 2) % 360},${s}%,${l - (dark() ? 8 : 0)}%)`;
}
