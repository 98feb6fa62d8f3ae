/**
 * The argument type of a tool that takes no arguments but needs its context (the context is always
 * the second parameter): `async emergencyStop(_args: NoArgs, ctx: ToolCallContext)`. Its schema is
 * an empty object and any argument passed is rejected.
 */
export class NoArgs {}
