// PGlite's share of an idle embedded process's resident memory, kept down without changing
// what PostgreSQL does: its file-system bundle is mapped instead of read, and the pages of its
// WASM heap that hold only zeros after start-up are handed back to the kernel
// (docs/decisions.md, "Embedded idle memory under 150 MB").
import { dlopen, FFIType, ptr } from "bun:ffi";
import { fileURLToPath } from "node:url";

/** Linux's MADV_DONTNEED: a private anonymous page reads as zeros again, from a fresh page on first touch. */
const MADV_DONTNEED = 4;
/** sysconf's name for the page size on Linux (glibc and musl). */
const SC_PAGESIZE = 30;

/** PGlite's bundle of PostgreSQL's share/ and lib/ files, beside its entry module. */
const FS_BUNDLE_PATH = fileURLToPath(new URL("./pglite.data", import.meta.resolve("@electric-sql/pglite")));

/**
 * The bundle (6.2 MB: initdb's catalog, encoding converters, ICU data, timezones) mapped
 * copy-on-write. PGlite's in-memory file system keeps views of this buffer as the files'
 * contents, so only the files PostgreSQL reads are ever paged in (a restart reads a few
 * hundred KB); read into memory, all of it stays resident. MAP_PRIVATE: a write to one of
 * these files (PostgreSQL makes none) changes this process's copy, never the package.
 */
export function mappedFsBundle(): Blob {
  const bundle = {
    async arrayBuffer(): Promise<ArrayBuffer> {
      try {
        return Bun.mmap(FS_BUNDLE_PATH, { shared: false }).buffer;
      } catch {
        // A platform without Bun.mmap reads it, as PGlite itself would.
        return Bun.file(FS_BUNDLE_PATH).arrayBuffer();
      }
    },
  };
  // PGlite only calls arrayBuffer() on the Blob it is given.
  return bundle as unknown as Blob;
}

interface Libc {
  madvise(addr: number, length: number, advice: number): number;
  mincore(addr: number, length: number, vec: number): number;
  pageBytes: number;
}

let libc: Libc | null | undefined;
function loadLibc(): Libc | null {
  if (libc !== undefined) return libc;
  libc = null;
  if (process.platform !== "linux") return libc;
  for (const name of ["libc.so.6", "libc.so"]) {
    try {
      const { symbols } = dlopen(name, {
        madvise: { args: [FFIType.ptr, FFIType.u64, FFIType.i32], returns: FFIType.i32 },
        mincore: { args: [FFIType.ptr, FFIType.u64, FFIType.ptr], returns: FFIType.i32 },
        sysconf: { args: [FFIType.i32], returns: FFIType.i64 },
      });
      const pageBytes = Number(symbols.sysconf(SC_PAGESIZE));
      if (!(pageBytes > 0)) return libc;
      libc = { madvise: (a, l, adv) => symbols.madvise(a, l, adv), mincore: (a, l, v) => symbols.mincore(a, l, v), pageBytes };
      return libc;
    } catch {
      // Another libc name, or no FFI here: try the next, else keep the pages.
    }
  }
  return libc;
}

/**
 * Returns the resident pages of `heap` (PGlite's WASM memory) whose bytes are all zero to the
 * kernel; returns how many bytes that was. Why: PostgreSQL's shared memory is zero-filled at
 * start-up (Emscripten's mmap clears what it hands out), so the unused part of shared_buffers
 * and of the other shared areas is resident though it holds nothing: ~13 of the ~19 MB the
 * heap keeps resident after a restart. A page that reads as zeros before and after is the
 * same page to PostgreSQL; must run while no query is executing (the WASM code runs on this
 * thread, so any synchronous moment between queries is one). Linux only; elsewhere, or
 * without a libc to call, it does nothing.
 */
export function releaseZeroPages(heap: Uint8Array): number {
  const c = loadLibc();
  if (!c) return 0;
  const base = ptr(heap);
  const first = Math.ceil(base / c.pageBytes) * c.pageBytes - base;
  const pages = Math.floor((heap.byteLength - first) / c.pageBytes);
  if (pages <= 0) return 0;
  const resident = new Uint8Array(pages);
  if (c.mincore(base + first, pages * c.pageBytes, ptr(resident)) !== 0) return 0;
  const words = new Int32Array(heap.buffer, heap.byteOffset + first, (pages * c.pageBytes) / 4);
  const pageWords = c.pageBytes / 4;
  let released = 0;
  let runStart = -1;
  const release = (end: number) => {
    if (runStart < 0) return;
    if (c.madvise(base + first + runStart * c.pageBytes, (end - runStart) * c.pageBytes, MADV_DONTNEED) === 0) released += (end - runStart) * c.pageBytes;
    runStart = -1;
  };
  for (let page = 0; page < pages; page++) {
    let zero = (resident[page]! & 1) === 1;
    for (let i = page * pageWords, end = i + pageWords; zero && i < end; i++) if (words[i] !== 0) zero = false;
    if (zero) {
      if (runStart < 0) runStart = page;
    } else {
      release(page);
    }
  }
  release(pages);
  return released;
}
