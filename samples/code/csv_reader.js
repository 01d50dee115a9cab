// A small streaming CSV reader: quoted fields, escaped quotes, CRLF line endings.
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";

const QUOTE = '"';

/**
 * Split one CSV record into fields.
 * Doubled quotes inside a quoted field ("") stand for one quote character.
 * @param {string} line
 * @param {string} delimiter
 * @returns {string[]}
 */
export function splitRecord(line, delimiter = ",") {
  const fields = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quoted) {
      if (ch === QUOTE && line[i + 1] === QUOTE) {
        field += QUOTE;
        i++;
      } else if (ch === QUOTE) {
        quoted = false;
      } else {
        field += ch;
      }
    } else if (ch === QUOTE) {
      quoted = true;
    } else if (ch === delimiter) {
      fields.push(field);
      field = "";
    } else {
      field += ch;
    }
  }
  fields.push(field);
  return fields;
}

/** Reads a CSV file row by row and maps each row onto the header names. */
export class CsvReader {
  delimiter;

  constructor(path, { delimiter = "," } = {}) {
    this.path = path;
    this.delimiter = delimiter;
  }

  /** Yields one object per data row, keyed by the header row's names. */
  async *rows() {
    const lines = createInterface({ input: createReadStream(this.path), crlfDelay: Infinity });
    let header = null;
    for await (const line of lines) {
      if (line.trim() === "") continue;
      const fields = splitRecord(line, this.delimiter);
      if (header === null) {
        header = fields;
        continue;
      }
      yield Object.fromEntries(header.map((name, i) => [name, fields[i] ?? ""]));
    }
  }

  // Collects every row; fine for files that fit in memory.
  async toArray() {
    const out = [];
    for await (const row of this.rows()) out.push(row);
    return out;
  }
}

export const countRows = async (path) => (await new CsvReader(path).toArray()).length;
