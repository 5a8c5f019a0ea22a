import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { MAX_QUERY_TERMS, toFtsQuery } from './fts-query';

describe('toFtsQuery', () => {
  it('quotes every word and ORs them, so operators and punctuation are never syntax', () => {
    expect(toFtsQuery('"foo" AND (bar OR')).toBe('"foo" OR "and" OR "bar" OR "or"');
    expect(toFtsQuery("x'})-[r]-()")).toBe('"x" OR "r"');
    expect(toFtsQuery('NEAR(a b) col:term^2 pre*')).toBe(
      '"near" OR "a" OR "b" OR "col" OR "term" OR "2" OR "pre"',
    );
  });

  it('keeps words of any script whole, combining marks included, and drops repeats', () => {
    expect(toFtsQuery('Café cafe\u0301 Ñandú 東京 שלום 42 CAFÉ')).toBe(
      '"café" OR "cafe\u0301" OR "ñandú" OR "東京" OR "שלום" OR "42"',
    );
  });

  it('returns null for text without words', () => {
    for (const text of ['', '   ', '*:*', '()"\'', '🦊 🚀', '-+~^'])
      expect(toFtsQuery(text)).toBeNull();
  });

  it(`caps a long text at ${MAX_QUERY_TERMS} distinct words`, () => {
    const text = Array.from({ length: 500 }, (_, index) => `word${index}`).join(' ');
    expect(toFtsQuery(text)?.split(' OR ')).toHaveLength(MAX_QUERY_TERMS);
  });

  it('produces queries FTS5 accepts for hostile input', () => {
    const db = new Database(':memory:');
    db.exec(
      "CREATE VIRTUAL TABLE t USING fts5(c, tokenize = 'porter unicode61 remove_diacritics 2')",
    );
    db.prepare('INSERT INTO t (c) VALUES (?)').run('a harmless row');
    const search = db.prepare('SELECT count(*) FROM t WHERE t MATCH ?').pluck();
    const inputs = [
      '"unterminated',
      'a AND OR NOT',
      'NEAR(',
      'c:harmless',
      '^row',
      'x* OR *',
      '\u0000row',
    ];
    for (const input of inputs) {
      const query = toFtsQuery(input);
      if (query !== null) expect(() => search.get(query), input).not.toThrow();
    }
    expect(search.get(toFtsQuery('HARMLESS!'))).toBe(1);
    db.close();
  });
});
