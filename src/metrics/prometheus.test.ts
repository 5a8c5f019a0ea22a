import { describe, expect, it } from 'vitest';
import { Registry } from './prometheus';

describe('Prometheus registry', () => {
  it('renders counters, histograms and gauges in the text exposition format', () => {
    const registry = new Registry();
    const requests = registry.counter('demo_requests_total', 'Requests.');
    const latency = registry.histogram('demo_seconds', 'Latency.', [0.1, 1]);
    registry.gauge('demo_pending', 'Pending.', () => 3);
    requests.inc({ route: '/v1/chat/completions', status: 200 });
    requests.inc({ status: 200, route: '/v1/chat/completions' }, 2);
    requests.inc({ route: 'a"b\\c\nd', status: 400 });
    latency.observe({ route: '/x' }, 0.05);
    latency.observe({ route: '/x' }, 0.5);
    latency.observe({ route: '/x' }, 5);
    expect(requests.value({ route: '/v1/chat/completions', status: 200 })).toBe(3);
    expect(registry.render()).toBe(
      [
        '# HELP demo_requests_total Requests.',
        '# TYPE demo_requests_total counter',
        'demo_requests_total{route="/v1/chat/completions",status="200"} 3',
        'demo_requests_total{route="a\\"b\\\\c\\nd",status="400"} 1',
        '# HELP demo_seconds Latency.',
        '# TYPE demo_seconds histogram',
        'demo_seconds_bucket{route="/x",le="0.1"} 1',
        'demo_seconds_bucket{route="/x",le="1"} 2',
        'demo_seconds_bucket{route="/x",le="+Inf"} 3',
        'demo_seconds_sum{route="/x"} 5.55',
        'demo_seconds_count{route="/x"} 3',
        '# HELP demo_pending Pending.',
        '# TYPE demo_pending gauge',
        'demo_pending 3',
        '',
      ].join('\n'),
    );
  });
});
