// ---------------------------------------------------------------- formatting
const NS_PER = { ns: 1, us: 1e3, 'µs': 1e3, ms: 1e6, s: 1e9 };
// Number.toLocaleString makes a formatter per call: tables format thousands of cells.
const INT_FORMAT = new Intl.NumberFormat('en-US'), FRAC_FORMAT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
// `bare`: no unit after plain counts (table cells); times always get one.
function fmtValue(v, unit, bare) {
  if (unit in NS_PER) {
    const ns = v * NS_PER[unit], a = Math.abs(ns);
    if (a >= 1e9) return (ns / 1e9).toFixed(a >= 1e11 ? 0 : a >= 1e10 ? 1 : 2) + ' s';
    if (a >= 1e6) return (ns / 1e6).toFixed(a >= 1e8 ? 0 : a >= 1e7 ? 1 : 2) + ' ms';
    if (a >= 1e3) return (ns / 1e3).toFixed(a >= 1e5 ? 0 : a >= 1e4 ? 1 : 2) + ' µs';
    return Math.round(ns) + ' ns';
  }
  const s = (Number.isInteger(v) ? INT_FORMAT : FRAC_FORMAT).format(v);
  return unit && unit !== 'count' && !bare ? s + ' ' + unit : s;
}
// Names shown in the DOM are cut short: a 10 MB frame name must not become a 10 MB cell.
const clip = (text) => (text.length > 600 ? text.slice(0, 600) + '…' : text);
function fmtPct(part, whole) {
  if (!(whole > 0)) return '–';
  const p = 100 * part / whole;
  return (p >= 10 || p === 0 ? p.toFixed(1) : p >= 0.01 ? p.toFixed(2) : '<0.01') + '%';
}
const TIME_UNITS = new Set(['ns', 'us', 'µs', 'ms', 's', 'samples']);
function columnLabel(col) {
  const known = { cpu: 'CPU', gpu: 'GPU', npu: 'NPU', samples: 'Samples', kernels: 'Kernels', calls: 'Calls' };
  if (col.name.startsWith(BEFORE)) return columnLabel({ name: sideName(col.name) }) + ' (before)';
  return known[col.name] || col.name || 'weight';
}
