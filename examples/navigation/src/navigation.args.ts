import { IsBoolean, IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { JSONSchema } from '@robot-mcp-kit/server';

/** Arguments of `navigate_to`. */
export class NavigateArgs {
  @JSONSchema({
    description:
      'Where to drive: a named place of the map (dock, lobby, corridor, kitchen, lab); see get_map',
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  goal!: string;
}

/** Arguments of `set_door`. */
export class SetDoorArgs {
  @JSONSchema({ description: 'The door to change, e.g. "lab_door"; see get_map' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  door!: string;

  @JSONSchema({ description: 'true opens the door, false closes it' })
  @IsBoolean()
  open!: boolean;
}
