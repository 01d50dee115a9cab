import { readFileSync } from "node:fs";

const LIMIT = 3;

/**
 * Split a CSV line on commas.
 */
function splitLine(line) {
  return line.split(",");
}

export class CsvReader extends Reader {
  delimiter = ",";

  constructor(path) {
    super();
    this.path = path;
  }

  // Read every row.
  rows() {
    const inner = () => 1;
    return readFileSync(this.path, "utf8").split("\n").map(splitLine);
  }
}

export const parseAll = (text) => text.split("\n");

console.log(LIMIT);
