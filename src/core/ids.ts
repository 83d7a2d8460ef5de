// Ids of the rows a message writes. Time-ordered (UUIDv7): each new id lands on the right
// edge of its primary-key b-tree instead of a random page of a large index, so an insert
// touches a page that is already in memory and dirties few new pages (fewer full-page
// images in the WAL after each checkpoint). The millisecond it carries is already public
// as the row's created_at.
export function newRowId(): string {
  return Bun.randomUUIDv7();
}
