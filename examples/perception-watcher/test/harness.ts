// The shared in-memory harness lives in test/support; re-exported for this example's tests.
export { connect, type Harness, textOf, typesOf } from '../../../test/support/in-memory-server.js';
