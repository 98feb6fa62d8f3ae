import { TaskError, type TaskContext, CapabilityServer, LongRunningTool, Tool } from '@robot-mcp-kit/server';
import { LABELS, type LabelSpec, SimulatedDetector } from './simulated-detector.js';
import { type WatcherConfig, watcherConfigFromEnv } from './watcher.config.js';
import { WatchForArgs } from './watcher.args.js';

/** The confidence `watch_for` requires when the caller gives none. */
export const DEFAULT_MIN_CONFIDENCE = 0.5;

/**
 * A perception server with a long-lived watcher: `watch_for` runs a simulated detector and emits a
 * `watch_event` `{label, confidence, bbox, frame}` each time it sees the label, until cancelled.
 */
@CapabilityServer({
  name: 'perception',
  version: '0.1.0',
  title: 'Perception watcher',
  description: 'A simulated object detector with long-lived watchers',
  instructions:
    'watch_for starts a watcher and returns its task_id at once; each sighting arrives as a watch_event. ' +
    'A watcher never ends by itself: stop it with cancel_task. list_labels lists what the detector knows.',
})
export class PerceptionWatcherServer {
  constructor(
    readonly config: WatcherConfig = watcherConfigFromEnv(),
    readonly labels: readonly LabelSpec[] = LABELS,
  ) {}

  @LongRunningTool({
    description:
      'Watch the camera for an object label. Returns a task_id immediately, then emits a watch_event ' +
      '{label, confidence, bbox, frame} each time the detector sees the label with at least min_confidence. ' +
      'Runs until cancelled with cancel_task. Fails with UNKNOWN_LABEL for a label the detector does not know.',
    args: WatchForArgs,
    annotations: { readOnlyHint: true, openWorldHint: false },
  })
  async watchFor(args: WatchForArgs, ctx: TaskContext): Promise<never> {
    const known = this.labels.map((l) => l.label);
    if (!known.includes(args.label)) {
      throw new TaskError(
        'UNKNOWN_LABEL',
        `The detector does not know "${args.label}". It knows: ${known.join(', ')}.`,
        {
          recoverable: true,
          suggestions: [`choose_one_of:${known.join(',')}`],
        },
      );
    }
    const minConfidence = args.min_confidence ?? DEFAULT_MIN_CONFIDENCE;
    const detector = new SimulatedDetector(this.config.seed, this.labels);
    const periodMs = 1000 / this.config.rateHz;
    for (;;) {
      // Rejects as soon as the task is cancelled, which ends the body: no terminal event.
      await ctx.sleep(periodMs);
      for (const detection of detector.nextFrame()) {
        if (detection.label === args.label && detection.confidence >= minConfidence)
          await ctx.emit(detection);
      }
    }
  }

  @Tool({
    description: 'The object labels the detector knows, and its frame rate.',
    annotations: { readOnlyHint: true, openWorldHint: false },
  })
  listLabels(): { labels: string[]; rate_hz: number } {
    return { labels: this.labels.map((l) => l.label), rate_hz: this.config.rateHz };
  }
}
