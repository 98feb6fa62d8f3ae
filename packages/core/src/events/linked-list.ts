/** A node of a {@link LinkedList}; keep it to remove the value in O(1). */
export interface ListNode<T> {
  readonly value: T;
  prev: ListNode<T> | undefined;
  next: ListNode<T> | undefined;
  /** The list holding the node, `undefined` once removed. */
  list: LinkedList<T> | undefined;
}

/**
 * A class, not an object literal: V8 pretenures a literal's allocation site once a scavenge finds
 * most of its objects alive, and from then on allocates every node of every list straight into the
 * old generation; instances of a class are not tracked that way.
 */
class Node<T> implements ListNode<T> {
  next: ListNode<T> | undefined = undefined;

  constructor(
    readonly value: T,
    public prev: ListNode<T> | undefined,
    public list: LinkedList<T> | undefined,
  ) {}
}

/**
 * A doubly linked list with O(1) push, shift and removal of any node: the poster's queues use
 * it so that an event dropped from the middle of a queue releases its memory at once.
 */
export class LinkedList<T> {
  private head: ListNode<T> | undefined;
  private tail: ListNode<T> | undefined;
  private count = 0;

  get length(): number {
    return this.count;
  }

  push(value: T): ListNode<T> {
    const node = new Node(value, this.tail, this);
    if (this.tail) this.tail.next = node;
    else this.head = node;
    this.tail = node;
    this.count += 1;
    return node;
  }

  peek(): T | undefined {
    return this.head?.value;
  }

  shift(): T | undefined {
    const node = this.head;
    if (!node) return undefined;
    this.remove(node);
    return node.value;
  }

  /** Unlinks `node`; a no-op when it is no longer in this list. */
  remove(node: ListNode<T>): void {
    if (node.list !== this) return;
    if (node.prev) node.prev.next = node.next;
    else this.head = node.next;
    if (node.next) node.next.prev = node.prev;
    else this.tail = node.prev;
    node.prev = undefined;
    node.next = undefined;
    node.list = undefined;
    this.count -= 1;
  }

  /** Removes and returns every value, oldest first. */
  drain(): T[] {
    const values: T[] = [];
    for (let value = this.shift(); value !== undefined; value = this.shift()) values.push(value);
    return values;
  }
}
