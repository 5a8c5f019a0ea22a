import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GroupCommit } from './group-commit';

// A file on disk in WAL mode, as the store runs it; `reader` is a second connection, which sees
// only what has committed.
let directory: string;
let file: string;
let writer: Database.Database;
let reader: Database.Database;
let rollbacks: number;
let commits: GroupCommit;

beforeEach(() => {
  directory = mkdtempSync(path.join(tmpdir(), 'memory-proxy-group-commit-'));
  file = path.join(directory, 'batch.sqlite');
  writer = new Database(file, { timeout: 1_000 });
  writer.pragma('journal_mode = WAL');
  writer.pragma('foreign_keys = ON');
  writer.exec(`
    CREATE TABLE owners (id TEXT PRIMARY KEY);
    CREATE TABLE notes (
      id TEXT PRIMARY KEY,
      owner TEXT REFERENCES owners (id) DEFERRABLE INITIALLY DEFERRED
    );
  `);
  reader = new Database(file, { readonly: true });
  rollbacks = 0;
  commits = new GroupCommit(writer, { onRollback: () => (rollbacks += 1) });
});

afterEach(() => {
  commits.flush();
  reader.close();
  writer.close();
  rmSync(directory, { recursive: true, force: true });
});

const insertNote =
  (id: string, owner: string | null = null) =>
  () =>
    writer.prepare('INSERT INTO notes (id, owner) VALUES (?, ?)').run(id, owner).changes;

const storedNotes = (): string[] =>
  reader.prepare('SELECT id FROM notes ORDER BY id').pluck().all() as string[];

/** Pages the write-ahead log holds: each commit appends the pages it changed. */
const logFrames = (): number => {
  const pageSize = writer.pragma('page_size', { simple: true }) as number;
  return Math.max(0, statSync(`${file}-wal`).size - 32) / (24 + pageSize);
};

describe('GroupCommit', () => {
  it('answers each write once another connection can read it, one commit for a turn of the event loop', async () => {
    await commits.write(insertNote('0'));
    const start = logFrames();
    await commits.write(insertNote('1'));
    const oneCommit = logFrames() - start;
    expect(oneCommit).toBeGreaterThan(0);

    const before = logFrames();
    const writes = ['a', 'b', 'c', 'd'].map((id) => commits.write(insertNote(id)));
    // Written, not yet committed: the second connection sees none of them.
    expect(storedNotes()).toEqual(['0', '1']);
    const seenOnAnswer = await Promise.all(writes.map((write) => write.then(() => storedNotes())));
    for (const seen of seenOnAnswer) expect(seen).toEqual(['0', '1', 'a', 'b', 'c', 'd']);
    // Four writes, the same pages changed: one commit's worth of log.
    expect(logFrames() - before).toBe(oneCommit);
  });

  it('commits the writes of later turns of the event loop in batches of their own', async () => {
    await commits.write(insertNote('0'));
    const start = logFrames();
    await commits.write(insertNote('first'));
    const oneCommit = logFrames() - start;
    await commits.write(insertNote('second'));
    expect(storedNotes()).toEqual(['0', 'first', 'second']);
    expect(logFrames() - start).toBe(2 * oneCommit);
  });

  it('rejects a write that fails and leaves none of it, committing the rest of its batch', async () => {
    const results = await Promise.allSettled([
      commits.write(insertNote('kept')),
      commits.write(() => {
        insertNote('half')();
        return insertNote('kept')(); // the same key again: this write fails after one insert
      }),
      commits.write(insertNote('also kept')),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(storedNotes()).toEqual(['also kept', 'kept']);
    expect(rollbacks).toBe(0);
  });

  it('rejects every write of a batch whose commit fails, stores none of them and reports the rollback', async () => {
    // A deferred foreign key is checked at COMMIT: the whole batch fails there.
    const results = await Promise.allSettled([
      commits.write(insertNote('innocent')),
      commits.write(insertNote('orphan', 'nobody')),
    ]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(String((results[0] as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY/);
    expect(storedNotes()).toEqual([]);
    expect(rollbacks).toBe(1);
    // The connection is usable again: the next batch commits.
    await commits.write(insertNote('after'));
    expect(storedNotes()).toEqual(['after']);
  });

  it('lets a write on the same connection outside it join the open batch, settled with it', async () => {
    const pending = commits.write(insertNote('batched'));
    writer.transaction(insertNote('joined')).immediate();
    expect(storedNotes()).toEqual([]);
    await commits.settled();
    expect(storedNotes()).toEqual(['batched', 'joined']);
    await pending;
  });

  it('hands a committed write to its follow-up before answering it, and a rolled-back one never', async () => {
    const seen: string[][] = [];
    const kept = commits.write(insertNote('kept'), () => seen.push(storedNotes()));
    expect(seen).toEqual([]);
    await kept;
    expect(seen).toEqual([['kept']]);

    const lost = commits.write(insertNote('orphan', 'nobody'), () => seen.push(['never']));
    await expect(lost).rejects.toThrow(/FOREIGN KEY/);
    expect(seen).toEqual([['kept']]);
  });

  it('commits each write before it returns when not grouped', async () => {
    const alone = new GroupCommit(writer, { grouped: false, onRollback: () => (rollbacks += 1) });
    const start = logFrames();
    const first = alone.write(insertNote('first'));
    expect(storedNotes()).toEqual(['first']);
    const oneCommit = logFrames() - start;
    const second = alone.write(insertNote('second'));
    expect(storedNotes()).toEqual(['first', 'second']);
    expect(logFrames() - start).toBe(2 * oneCommit);
    await expect(Promise.all([first, second])).resolves.toEqual([1, 1]);

    // A write that fails commits nothing and leaves no transaction open behind it.
    await expect(alone.write(insertNote('first'))).rejects.toThrow(/UNIQUE/);
    expect(writer.inTransaction).toBe(false);
    await alone.write(insertNote('third'));
    expect(storedNotes()).toEqual(['first', 'second', 'third']);
  });

  it('runs a write alone after committing the open batch, and answers it committed', async () => {
    const batched = commits.write(insertNote('batched'));
    const seenBefore: string[][] = [];
    const seenAfter: string[][] = [];
    const changes = commits.alone(
      () => {
        seenBefore.push(storedNotes());
        return insertNote('bulk')();
      },
      () => seenAfter.push(storedNotes()),
    );
    // The batch landed before the write began, and the write before its follow-up ran.
    expect(seenBefore).toEqual([['batched']]);
    expect(seenAfter).toEqual([['batched', 'bulk']]);
    await expect(changes).resolves.toBe(1);
    await expect(batched).resolves.toBe(1);
    expect(writer.inTransaction).toBe(false);
  });

  it('runs a write alone in one transaction: one that fails leaves nothing and keeps the batch before it', async () => {
    const batched = commits.write(insertNote('batched'));
    const failing = () => {
      insertNote('half')();
      return insertNote('batched')(); // the same key again: fails after one insert
    };
    await expect(commits.alone(failing, () => rollbacks++)).rejects.toThrow(/UNIQUE/);
    await expect(batched).resolves.toBe(1);
    expect(storedNotes()).toEqual(['batched']);
    // Nothing it wrote reached a commit: nothing kept in memory of it is dropped.
    expect(rollbacks).toBe(0);
    expect(writer.inTransaction).toBe(false);
  });

  it('rolls back a write alone whose commit fails, and tells the caller to drop what it kept', async () => {
    const seen: string[] = [];
    // The owner is checked at COMMIT (a deferred foreign key): the write itself succeeds.
    await expect(
      commits.alone(insertNote('orphan', 'nobody'), () => seen.push('committed')),
    ).rejects.toThrow(/FOREIGN KEY/);
    expect(rollbacks).toBe(1);
    expect(seen).toEqual([]);
    expect(storedNotes()).toEqual([]);
    expect(writer.inTransaction).toBe(false);
    await expect(commits.alone(insertNote('after'))).resolves.toBe(1);
    expect(storedNotes()).toEqual(['after']);
  });

  it('commits an open batch at once when flushed', async () => {
    const pending = commits.write(insertNote('flushed'));
    commits.flush();
    expect(storedNotes()).toEqual(['flushed']);
    await expect(pending).resolves.toBe(1);
  });
});
