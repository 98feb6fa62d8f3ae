/**
 * The questions the generator asks on a terminal. A port, so tests answer with a script and the
 * real one (@inquirer/prompts) is loaded only when a person is there to answer.
 */
export interface Prompter {
  input(question: {
    message: string;
    default?: string;
    validate?: (value: string) => true | string;
  }): Promise<string>;
  select<T extends string>(question: {
    message: string;
    choices: { name: string; value: T; description?: string }[];
    default?: T;
  }): Promise<T>;
  confirm(question: { message: string; default?: boolean }): Promise<boolean>;
}

/** The terminal prompter (@inquirer/prompts), imported on first use. */
export async function createInquirerPrompter(): Promise<Prompter> {
  const inquirer = await import('@inquirer/prompts');
  return {
    input: (question) => inquirer.input(question),
    select: (question) => inquirer.select(question),
    confirm: (question) => inquirer.confirm(question),
  };
}

/** True for the error @inquirer/prompts throws when the user presses Ctrl-C. */
export function isPromptCancelled(err: unknown): boolean {
  return err instanceof Error && (err.name === 'ExitPromptError' || err.name === 'AbortPromptError');
}
