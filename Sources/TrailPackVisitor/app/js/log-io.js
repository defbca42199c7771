// My log out of the phone and back (issue #51): a CSV file with everything the log holds (visits,
// notes and favourites, goals, checklists) and a GPX file of the stops reached, with their times,
// for maps and other apps; either read back on a new phone. An imported file is hostile: its size
// and its rows are bounded, and what cannot be read is refused with a message naming the line and
// the field, never thrown past `readExport`.

import { LIMITS, emptyLog, isSlug, isTourId, validLog } from './journal.js';

/** The largest file read (4 MiB: far more than 20,000 visits). */
export const MAX_IMPORT_BYTES = 4 << 20;
/** The most rows a CSV may have. */
export const MAX_ROWS = LIMITS.visits + LIMITS.marks + LIMITS.goals + LIMITS.checklists * 50 + 10;

export const CSV_COLUMNS = Object.freeze([
  'record', 'tour', 'stop', 'time', 'how', 'tour_name', 'stop_name', 'latitude', 'longitude', 'favourite', 'note',
  'target',
]);

/** Why an import was refused, in words naming where (`line`, `field`) and what to do. */
export class ImportError extends Error {
  constructor(message, line = null, field = null) {
    super(message);
    this.name = 'ImportError';
    this.line = line;
    this.field = field;
  }
}

function cell(value) {
  const s = value === undefined || value === null ? '' : String(value);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

const iso = (ms) => new Date(ms).toISOString();

/** The whole log as CSV (RFC 4180, a header line, CRLF). */
export function toCSV(log) {
  const rows = [CSV_COLUMNS];
  for (const v of log.visits) {
    rows.push(['visit', v.tour, v.stop, iso(v.at), v.how, v.tourName, v.stopName, v.latitude ?? '', v.longitude ?? '', '', '', '']);
  }
  for (const [key, m] of Object.entries(log.marks)) {
    const [tour, stop = ''] = key.split('#');
    rows.push(['mark', tour, stop, '', '', stop ? '' : m.name, stop ? m.name : '', '', '', m.favourite ? 'yes' : 'no', m.note, '']);
  }
  for (const g of log.goals) rows.push(['goal', '', '', iso(g.from), '', '', '', '', '', '', g.label, g.target]);
  for (const [name, tours] of Object.entries(log.checklists)) {
    for (const [tour, slugs] of Object.entries(tours)) {
      for (const slug of slugs) rows.push(['checklist', tour, slug, '', '', '', '', '', '', '', name, '']);
    }
  }
  return `${rows.map((r) => r.map(cell).join(',')).join('\r\n')}\r\n`;
}

const xml = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The stops reached, with their times, as GPX 1.1 waypoints (visits without a position are left out). */
export function toGPX(log, now = Date.now()) {
  const points = log.visits.filter((v) => v.latitude !== undefined).map((v) => {
    const note = log.marks[`${v.tour}#${v.stop}`]?.note;
    return `  <wpt lat="${v.latitude}" lon="${v.longitude}">\n    <time>${iso(v.at)}</time>\n` +
      `    <name>${xml(v.stopName || v.stop)}</name>\n    <desc>${xml(v.tourName || v.tour)}</desc>\n` +
      (note ? `    <cmt>${xml(note)}</cmt>\n` : '') +
      `    <type>${v.how === 'hand' ? 'visit-by-hand' : 'visit'}</type>\n` +
      `    <extensions><tp:visit tour="${xml(v.tour)}" stop="${xml(v.stop)}"/></extensions>\n  </wpt>`;
  });
  return '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<gpx version="1.1" creator="Trail tours" xmlns="http://www.topografix.com/GPX/1/1" ' +
    'xmlns:tp="urn:trailpack:log:1">\n' +
    `  <metadata><name>My log</name><time>${iso(now)}</time></metadata>\n${points.join('\n')}${points.length ? '\n' : ''}</gpx>\n`;
}

/** The rows of a CSV text (RFC 4180: quoted fields with "" and line breaks), each with its line number. */
export function parseCSV(text) {
  const rows = [];
  let row = [];
  let field = '';
  let quoted = false;
  let line = 1;
  let rowLine = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else {
        if (c === '\n') line++;
        field += c;
      }
      continue;
    }
    if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push({ line: rowLine, cells: row });
      if (rows.length > MAX_ROWS) throw new ImportError(`The file has more than ${MAX_ROWS} lines: it is not a log exported by this app.`, line);
      row = [];
      field = '';
      line++;
      rowLine = line;
    } else if (c === '"') {
      throw new ImportError(`Line ${line}: a quote inside a field that does not start with one.`, line);
    } else field += c;
  }
  if (quoted) throw new ImportError(`Line ${rowLine}: a quoted field is never closed.`, rowLine);
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push({ line: rowLine, cells: row });
  }
  return rows.filter((r) => !(r.cells.length === 1 && r.cells[0] === ''));
}

function refuse(line, field, what) {
  throw new ImportError(`Line ${line}, field "${field}": ${what}`, line, field);
}

function time(line, field, value) {
  const ms = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}T[\d:.]+(Z|[+-]\d{2}:\d{2})$/.test(value) || !Number.isSafeInteger(ms) || ms < 0) {
    refuse(line, field, `"${value.slice(0, 40)}" is not a date and time such as 2026-07-12T14:05:00Z.`);
  }
  return ms;
}

function coordinate(line, field, value, max) {
  if (value === '') return undefined;
  const n = Number(value);
  if (!/^-?\d+(\.\d+)?$/.test(value) || Math.abs(n) > max) refuse(line, field, `"${value.slice(0, 40)}" is not a ${field}.`);
  return n;
}

function fromCSV(text) {
  const rows = parseCSV(text);
  if (rows.length === 0) throw new ImportError('The file is empty.');
  const header = rows[0].cells.map((c) => c.trim());
  if (header.join(',') !== CSV_COLUMNS.join(',')) {
    throw new ImportError(`Line 1: the columns are not those of a log exported by this app (${CSV_COLUMNS.join(', ')}).`, 1);
  }
  const log = emptyLog();
  const checklists = {};
  for (const { line, cells } of rows.slice(1)) {
    if (cells.length !== CSV_COLUMNS.length) {
      throw new ImportError(`Line ${line}: ${cells.length} fields, where a log has ${CSV_COLUMNS.length}.`, line);
    }
    const r = Object.fromEntries(CSV_COLUMNS.map((name, i) => [name, cells[i]]));
    for (const [name, value] of Object.entries(r)) {
      const max = name === 'note' ? LIMITS.note : LIMITS.name;
      if (value.length > max) refuse(line, name, `longer than ${max} characters.`);
    }
    const tourAndStop = (needStop) => {
      if (!isTourId(r.tour)) refuse(line, 'tour', `"${r.tour.slice(0, 40)}" is not a tour's id.`);
      if ((needStop || r.stop !== '') && !isSlug(r.stop)) refuse(line, 'stop', `"${r.stop.slice(0, 40)}" is not a stop's name in a tour.`);
    };
    switch (r.record) {
      case 'visit': {
        tourAndStop(true);
        if (r.how !== 'arrival' && r.how !== 'hand') refuse(line, 'how', 'must be "arrival" or "hand".');
        const latitude = coordinate(line, 'latitude', r.latitude, 90);
        const longitude = coordinate(line, 'longitude', r.longitude, 180);
        if (log.visits.length >= LIMITS.visits) refuse(line, 'record', `more than ${LIMITS.visits} visits.`);
        log.visits.push({
          tour: r.tour, stop: r.stop, at: time(line, 'time', r.time), how: r.how, tourName: r.tour_name,
          stopName: r.stop_name, ...(latitude !== undefined && longitude !== undefined ? { latitude, longitude } : {}),
        });
        break;
      }
      case 'mark':
        tourAndStop(false);
        if (r.favourite !== 'yes' && r.favourite !== 'no') refuse(line, 'favourite', 'must be "yes" or "no".');
        log.marks[r.stop ? `${r.tour}#${r.stop}` : r.tour] = {
          note: r.note, favourite: r.favourite === 'yes', name: r.stop ? r.stop_name : r.tour_name,
        };
        break;
      case 'goal': {
        const target = Number(r.target);
        if (!/^\d{1,5}$/.test(r.target) || target < 1) refuse(line, 'target', 'must be a whole number from 1 to 10000.');
        if (!r.note.trim()) refuse(line, 'note', 'a goal needs its words.');
        log.goals.push({ id: log.goals.length + 1, label: r.note, target, from: time(line, 'time', r.time) });
        break;
      }
      case 'checklist':
        tourAndStop(true);
        if (!r.note.trim()) refuse(line, 'note', 'a checklist needs its name.');
        ((checklists[r.note] ??= {})[r.tour] ??= []).push(r.stop);
        break;
      default:
        refuse(line, 'record', `"${r.record.slice(0, 40)}" is not one of visit, mark, goal, checklist.`);
    }
  }
  log.checklists = checklists;
  return validLog(log);
}

const unxml = (s) => s.replace(/&(lt|gt|quot|apos|amp);/g, (_, e) => ({ lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' })[e]);

function attribute(tag, name) {
  const match = new RegExp(`\\s${name}="([^"]{0,300})"`).exec(tag);
  return match ? unxml(match[1]) : null;
}

function element(body, name) {
  const match = new RegExp(`<${name}>([^<]{0,${LIMITS.note * 6}})</${name}>`).exec(body);
  return match ? unxml(match[1]).trim() : '';
}

/** The visits of a GPX file this app exported (its own waypoints, named by tour and stop). */
function fromGPX(text) {
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw new ImportError('The GPX file declares a DOCTYPE or entities: it is refused.');
  if (!/<gpx[\s>]/.test(text)) throw new ImportError('The file is not GPX (no <gpx> element).');
  const log = emptyLog();
  const lineAt = (index) => text.slice(0, index).split('\n').length;
  const pattern = /<wpt\b([^>]{0,200})>([\s\S]{0,20000}?)<\/wpt>/g;
  let match;
  let count = 0;
  while ((match = pattern.exec(text)) !== null) {
    const line = lineAt(match.index);
    if (++count > LIMITS.visits) refuse(line, 'wpt', `more than ${LIMITS.visits} waypoints.`);
    const [, attributes, body] = match;
    const visit = /<tp:visit\b[^>]{0,600}\/>/.exec(body)?.[0];
    if (!visit) refuse(line, 'extensions', 'a waypoint that this app did not export (it names no tour and stop).');
    const tour = attribute(visit, 'tour') ?? '';
    const stop = attribute(visit, 'stop') ?? '';
    if (!isTourId(tour)) refuse(line, 'tour', `"${tour.slice(0, 40)}" is not a tour's id.`);
    if (!isSlug(stop)) refuse(line, 'stop', `"${stop.slice(0, 40)}" is not a stop's name in a tour.`);
    const latitude = coordinate(line, 'latitude', attribute(` ${attributes}`, 'lat') ?? '', 90);
    const longitude = coordinate(line, 'longitude', attribute(` ${attributes}`, 'lon') ?? '', 180);
    const note = element(body, 'cmt');
    log.visits.push({
      tour, stop, at: time(line, 'time', element(body, 'time')), how: element(body, 'type') === 'visit-by-hand' ? 'hand' : 'arrival',
      tourName: element(body, 'desc'), stopName: element(body, 'name'),
      ...(latitude !== undefined && longitude !== undefined ? { latitude, longitude } : {}),
    });
    if (note) log.marks[`${tour}#${stop}`] = { note, favourite: false, name: element(body, 'name') };
  }
  return validLog(log);
}

/**
 * A log read back from a file this app exported (CSV or GPX, told apart by its content): the
 * log, or an ImportError saying why not. Never throws.
 * @param {string|Uint8Array} input
 * @returns {{log: object}|{error: ImportError}}
 */
export function readExport(input) {
  try {
    const size = typeof input === 'string' ? input.length : input?.length;
    if (!Number.isSafeInteger(size)) throw new ImportError('Nothing was read from the file.');
    if (size > MAX_IMPORT_BYTES) {
      throw new ImportError(`The file is ${Math.ceil(size / 1048576)} MB; a log exported by this app is at most 4 MB.`);
    }
    let text = input;
    if (typeof input !== 'string') {
      try {
        text = new TextDecoder('utf-8', { fatal: true }).decode(input);
      } catch {
        throw new ImportError('The file is not text in UTF-8: it is not a log exported by this app.');
      }
    }
    text = text.replace(/^\uFEFF/, '');
    const log = /^\s*</.test(text) ? fromGPX(text) : fromCSV(text);
    return { log };
  } catch (error) {
    return { error: error instanceof ImportError ? error : new ImportError(`The file cannot be read (${error?.message ?? error}).`) };
  }
}
