import { IsNotEmpty, IsNumber, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { JSONSchema } from '@robot-mcp-kit/server';

/** Arguments of `watch_for`. */
export class WatchForArgs {
  @JSONSchema({ description: 'The object label to watch for, e.g. "person" or "cup"; see list_labels' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  label!: string;

  @JSONSchema({ description: 'Only report detections at least this confident (0..1, default 0.5)' })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(1)
  min_confidence?: number;
}
