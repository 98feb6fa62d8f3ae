/** Options of the event feed (`get_events`, `wait_for_event`). */
export interface EventFeedOptions {
  /** Offer the event feed tools (default true). Variable `RMK_EVENT_FEED=0` turns them off. */
  eventFeed?: boolean;
  /** Entries the feed keeps (default 500). Variable `RMK_EVENT_BUFFER`. */
  eventBuffer?: number;
  /**
   * The longest `wait_for_event` in seconds (default 45, from 1 to 3600). Variable `RMK_MAX_WAIT_S`.
   * Above 45 only for clients set up for long requests (SDK: `resetTimeoutOnProgress` with a
   * progress handler, or a longer `timeout`/`maxTotalTimeout`): most clients give up at 60 s.
   */
  maxWaitS?: number;
}
