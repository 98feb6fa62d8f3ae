/**
 * A FIFO of finished task ids (oldest first) with O(1) amortized push and shift, used to evict
 * the oldest finished tasks beyond `maxFinishedRetained`.
 */
export class FinishedQueue {
  private items: string[] = [];
  private head = 0;

  get size(): number {
    return this.items.length - this.head;
  }

  push(taskId: string): void {
    this.items.push(taskId);
  }

  /** Removes and returns the oldest id. */
  shift(): string | undefined {
    if (this.head >= this.items.length) return undefined;
    const taskId = this.items[this.head];
    this.head += 1;
    if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return taskId;
  }
}
