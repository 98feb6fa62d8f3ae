/** The pair of link fields one list uses on its members (a member can sit in several lists). */
export interface ListLinks<T> {
  prev(item: T): T | undefined;
  next(item: T): T | undefined;
  setPrev(item: T, prev: T | undefined): void;
  setNext(item: T, next: T | undefined): void;
}

/**
 * A doubly linked list whose links are fields of its members (intrusive): pushing or removing a
 * member allocates nothing, and removing one from the middle is O(1). The poster's queues use it:
 * a waiting event sits in four lists at once, and a node object per list and event (56 bytes
 * each, plus the object holding them) was most of what a waiting event cost beyond its body.
 *
 * The caller knows which list a member is in: removing a member from a list it is not in corrupts
 * both lists.
 */
export class IntrusiveList<T> {
  private head: T | undefined = undefined;
  private tail: T | undefined = undefined;
  private count = 0;

  constructor(private readonly links: ListLinks<T>) {}

  get length(): number {
    return this.count;
  }

  push(item: T): void {
    const { links, tail } = this;
    links.setPrev(item, tail);
    links.setNext(item, undefined);
    if (tail === undefined) this.head = item;
    else links.setNext(tail, item);
    this.tail = item;
    this.count += 1;
  }

  peek(): T | undefined {
    return this.head;
  }

  /** The member after `item` (which must be in this list). */
  after(item: T): T | undefined {
    return this.links.next(item);
  }

  shift(): T | undefined {
    const item = this.head;
    if (item !== undefined) this.remove(item);
    return item;
  }

  /** Unlinks `item`, which must be in this list. */
  remove(item: T): void {
    const { links } = this;
    const prev = links.prev(item);
    const next = links.next(item);
    if (prev === undefined) this.head = next;
    else links.setNext(prev, next);
    if (next === undefined) this.tail = prev;
    else links.setPrev(next, prev);
    links.setPrev(item, undefined);
    links.setNext(item, undefined);
    this.count -= 1;
  }

  /** Removes and returns every member, oldest first. */
  drain(): T[] {
    const items: T[] = [];
    for (let item = this.shift(); item !== undefined; item = this.shift()) items.push(item);
    return items;
  }
}
