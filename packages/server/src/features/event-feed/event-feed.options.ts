/** Options of the event feed (`get_events`, `wait_for_event`). */
export interface EventFeedOptions {
  /** Offer the event feed tools (default true). Variable `RMK_EVENT_FEED=0` turns them off. */
  eventFeed?: boolean;
  /** Entries the feed keeps (default 500). Variable `RMK_EVENT_BUFFER`. */
  eventBuffer?: number;
}
