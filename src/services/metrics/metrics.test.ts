import { describe, expect, it } from 'vitest';
import type { ChangeFeed, ChangeListener } from '../../store/change-feed.js';
import { FeedCache } from '../shared/feed-cache.js';
import { Metrics } from './metrics.js';

/** A change feed this test drives: live or not, as late as it says. */
class TestFeed implements ChangeFeed {
  live = true;
  lateMs = 0;
  private readonly listeners = new Set<ChangeListener>();

  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  lagMs(): number {
    return this.lateMs;
  }

  emit(workspaceId: string | null): void {
    for (const listener of this.listeners) listener({ workspaceId });
  }
}

function lines(text: string, name: string): string[] {
  return text.split('\n').filter((line) => line.startsWith(name));
}

describe('Metrics', () => {
  it('counts evictions by the bound, not invalidations by the change feed', async () => {
    const feed = new TestFeed();
    const cache = new FeedCache<{ id: string }>(feed, { maxEntries: 2 });
    const metrics = new Metrics('/read');
    metrics.watchCache('test', cache.stats);
    for (const id of ['a', 'b', 'c']) await cache.get(id, () => Promise.resolve({ id }));
    expect(cache.get('c', () => Promise.resolve(undefined))).toEqual({ id: 'c' });
    feed.emit(null);

    const text = await metrics.text();
    expect(lines(text, 'brand_context_cache_')).toEqual([
      'brand_context_cache_hits_total{cache="test"} 1',
      'brand_context_cache_misses_total{cache="test"} 3',
      'brand_context_cache_evictions_total{cache="test"} 1',
      'brand_context_cache_entries{cache="test"} 0',
    ]);
  });

  it("reports the change feed's state and lag as the feed tells them", async () => {
    const feed = new TestFeed();
    const metrics = new Metrics('/read');
    metrics.watchChangeFeed(feed);
    expect(lines(await metrics.text(), 'brand_context_change_feed_')).toEqual([
      'brand_context_change_feed_up 1',
      'brand_context_change_feed_lag_seconds 0',
    ]);
    feed.live = false;
    feed.lateMs = 2500;
    expect(lines(await metrics.text(), 'brand_context_change_feed_')).toEqual([
      'brand_context_change_feed_up 0',
      'brand_context_change_feed_lag_seconds 2.5',
    ]);
  });

  it('puts requests no route matched under one label, and times only the read route', async () => {
    const metrics = new Metrics('/read');
    metrics.requestCompleted(undefined, 'GET', 404, 1);
    metrics.requestCompleted(undefined, 'GET', 404, 1);
    metrics.requestCompleted('/read', 'POST', 200, 0.7);
    metrics.requestCompleted('/read', 'GET', 405, 0.1);
    const text = await metrics.text();
    expect(lines(text, 'brand_context_http_requests_total{')).toEqual([
      'brand_context_http_requests_total{route="unmatched",method="GET",status="404"} 2',
      'brand_context_http_requests_total{route="/read",method="POST",status="200"} 1',
      'brand_context_http_requests_total{route="/read",method="GET",status="405"} 1',
    ]);
    expect(lines(text, 'brand_context_read_duration_seconds_bucket{le="0.0005"}')).toEqual([
      'brand_context_read_duration_seconds_bucket{le="0.0005"} 0',
    ]);
    expect(lines(text, 'brand_context_read_duration_seconds_bucket{le="0.001"}')).toEqual([
      'brand_context_read_duration_seconds_bucket{le="0.001"} 1',
    ]);
    expect(lines(text, 'brand_context_read_duration_seconds_count')).toEqual([
      'brand_context_read_duration_seconds_count 1',
    ]);
  });

  it('counts delivery outcomes by channel, and the queue as counted when scraped', async () => {
    const metrics = new Metrics('/read');
    metrics.deliveryOutcome('webhook', 'succeeded');
    metrics.deliveryOutcome('webhook', 'succeeded');
    metrics.deliveryOutcome('email', 'deferred');
    let queued = 3;
    metrics.watchDeliveryQueue(() =>
      Promise.resolve([{ channel: 'email', status: 'queued', count: queued }]),
    );
    const first = await metrics.text();
    expect(lines(first, 'brand_context_delivery_')).toEqual([
      'brand_context_delivery_queue_depth{channel="email",status="queued"} 3',
      'brand_context_delivery_outcomes_total{channel="webhook",outcome="succeeded"} 2',
      'brand_context_delivery_outcomes_total{channel="email",outcome="deferred"} 1',
    ]);
    queued = 0;
    expect(lines(await metrics.text(), 'brand_context_delivery_queue_depth')).toEqual([
      'brand_context_delivery_queue_depth{channel="email",status="queued"} 0',
    ]);
  });

  it('leaves the queue out, and answers the rest, while the database does not answer', async () => {
    const metrics = new Metrics('/read');
    metrics.requestCompleted('/read', 'POST', 503, 1);
    metrics.watchDeliveryQueue(() => Promise.reject(new Error('the database is unavailable')));
    const text = await metrics.text();
    expect(lines(text, 'brand_context_delivery_queue_depth{')).toEqual([]);
    expect(lines(text, 'brand_context_http_requests_total{')).toEqual([
      'brand_context_http_requests_total{route="/read",method="POST",status="503"} 1',
    ]);
  });
});
