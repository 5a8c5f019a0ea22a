import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, lookupModel } from './load-config';

describe('loadConfig: background jobs', () => {
  it('keeps memory forever unless RETENTION_DAYS is set, and runs the jobs hourly', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      retentionDays: null,
      retentionGraceDays: 7,
      maintenanceIntervalSeconds: 3600,
      topicSummaries: 'extractive',
      topicThreshold: 0.15,
      topicMax: 64,
    });
    expect(loadConfig({ RETENTION_DAYS: '30', RETENTION_GRACE_DAYS: '0' })).toMatchObject({
      retentionDays: 30,
      retentionGraceDays: 0,
    });
    expect(loadConfig({ EMBEDDING_MODEL: 'text-embedding-3-small' }).topicThreshold).toBe(0.5);
  });

  it('stops at a bad value with a message naming the variable', () => {
    for (const [name, value] of [
      ['RETENTION_DAYS', 'forever'],
      ['RETENTION_DAYS', '0'],
      ['RETENTION_GRACE_DAYS', '-1'],
      ['MAINTENANCE_INTERVAL_SECONDS', '1.5'],
      ['TOPIC_SUMMARIES', 'llm'],
      ['TOPIC_THRESHOLD', '2'],
      ['TOPIC_MAX', '0'],
    ] as const) {
      expect(() => loadConfig({ [name]: value }), `${name}=${value}`).toThrow(ConfigError);
      expect(() => loadConfig({ [name]: value })).toThrow(name);
    }
  });

  it('needs SUMMARY_MODEL for model-written topic summaries', () => {
    expect(() => loadConfig({ TOPIC_SUMMARIES: 'model' })).toThrow('TOPIC_SUMMARIES');
    expect(
      loadConfig({ TOPIC_SUMMARIES: 'model', SUMMARY_MODEL: 'gpt-4o-mini' }).topicSummaries,
    ).toBe('model');
  });
});

describe('loadConfig: connections', () => {
  it('keeps idle client connections for 65 s unless KEEP_ALIVE_SECONDS says otherwise', () => {
    expect(loadConfig({}).keepAliveSeconds).toBe(65);
    expect(loadConfig({ KEEP_ALIVE_SECONDS: '5' }).keepAliveSeconds).toBe(5);
    for (const value of ['0', '1.5', 'long', '3601']) {
      expect(() => loadConfig({ KEEP_ALIVE_SECONDS: value }), value).toThrow('KEEP_ALIVE_SECONDS');
    }
  });
});

describe('lookupModel', () => {
  const models = loadConfig({}).models;

  it('finds a dated or tagged model by the longest table key it starts with, and nothing else', () => {
    expect(lookupModel(models, 'GPT-4o-mini')).toBe(models['gpt-4o-mini']);
    // Twice each: the second answer comes from the memo of prefix searches and must agree.
    for (let asked = 0; asked < 2; asked++) {
      expect(lookupModel(models, 'gpt-4o-mini-2024-07-18')?.contextWindow).toBe(128_000);
      expect(lookupModel(models, 'gpt-4-32k-0613')?.contextWindow).toBe(32_768);
      expect(lookupModel(models, 'gpt-4.1-mini-2025-04-14')?.contextWindow).toBe(1_047_576);
      expect(lookupModel(models, 'gpt-4oxyz')).toBeNull();
      expect(lookupModel(models, 'my-local-model')).toBeNull();
    }
  });
});

describe('loadConfig: the search thread', () => {
  it('searches on a thread of its own when the processes leave a core free, unless told', () => {
    const cores = availableParallelism();
    expect(loadConfig({}).searchThread).toBe(cores > 1);
    expect(loadConfig({ WORKERS: String(cores) }).searchThread).toBe(false);
    expect(loadConfig({ WORKERS: String(cores), SEARCH_THREAD: 'true' }).searchThread).toBe(true);
    expect(loadConfig({ SEARCH_THREAD: 'off' }).searchThread).toBe(false);
    expect(() => loadConfig({ SEARCH_THREAD: 'sometimes' })).toThrow('SEARCH_THREAD');
  });
});

describe('loadConfig: grouped commits', () => {
  it('groups commits when the process writes alone, unless told', () => {
    // A grouped commit holds the write lock for a turn of the event loop, which other processes
    // on the same file would wait out.
    expect(loadConfig({}).groupCommit).toBe(true);
    expect(loadConfig({ WORKERS: '2' }).groupCommit).toBe(false);
    expect(loadConfig({ WORKERS: '2', GROUP_COMMIT: 'true' }).groupCommit).toBe(true);
    expect(() => loadConfig({ GROUP_COMMIT: 'maybe' })).toThrow('GROUP_COMMIT');
  });
});
