import {
  type CapabilityServerArgs,
  type LongRunningToolArgs,
  type ToolArgs,
  type TriggerArgs,
} from './decorator-args.types.js';

/** What a method decorator recorded: the frozen arguments plus the method it was put on. */
export interface RecordedMethod<Args> {
  readonly methodName: string;
  readonly args: Readonly<Args>;
}

export type RecordedServer = Readonly<CapabilityServerArgs>;
export type RecordedTool = RecordedMethod<ToolArgs>;
export type RecordedLongRunningTool = RecordedMethod<LongRunningToolArgs>;
export type RecordedTrigger = RecordedMethod<TriggerArgs & { type: string }>;
