import { errorText } from './signed-message.js';

/**
 * A broker connection made once, on first use, shared by every send. A failed attempt is
 * forgotten, so the next send tries again (the poster's retry schedule paces the attempts).
 */
export class ConnectOnce {
  private opening: Promise<void> | undefined;

  constructor(private readonly connect: () => Promise<void>) {}

  /** Connects (once). @throws what `connect` throws */
  open(): Promise<void> {
    this.opening ??= this.connect();
    return this.opening;
  }

  /** For a send: `undefined` once connected, else the error text (the next call retries). */
  async ready(): Promise<string | undefined> {
    try {
      await this.open();
      return undefined;
    } catch (err) {
      this.opening = undefined;
      return errorText(err);
    }
  }
}
