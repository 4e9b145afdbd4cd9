// A strict RFC 4180 reader for tests: it reads CSV back independently of the writer under test,
// and throws on anything malformed (a stray quote, a missing final line break).
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let i = 0;
  let quotedField = false;
  while (i < text.length) {
    const c = text[i]!;
    if (quotedField) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
      } else if (c === '"') {
        quotedField = false;
        i++;
        if (![',', '\r', undefined].includes(text[i]))
          throw new Error(`CSV: text after a closing quote at ${i}`);
      } else {
        field += c;
        i++;
      }
      continue;
    }
    if (c === '"') {
      if (field !== '') throw new Error(`CSV: a quote inside an unquoted field at ${i}`);
      quotedField = true;
      i++;
    } else if (c === ',') {
      record.push(field);
      field = '';
      i++;
    } else if (c === '\r' && text[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i += 2;
    } else if (c === '\r' || c === '\n') {
      throw new Error(`CSV: a bare line break at ${i} (records end with CRLF)`);
    } else {
      field += c;
      i++;
    }
  }
  if (quotedField) throw new Error('CSV: unterminated quoted field');
  if (field !== '' || record.length > 0) throw new Error('CSV: the last record does not end with CRLF');
  return records;
}
