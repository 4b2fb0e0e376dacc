// File-system errors in words, for messages that say what to fix (a full disk, a folder that is
// not writable) instead of a bare errno.

const CAUSES: Record<string, string> = {
  EACCES: 'permission denied (the folder is not writable by this user)',
  EPERM: 'operation not permitted (permission denied)',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  ENOENT: 'no such file or directory',
  ENOTDIR: 'a part of the path is a file, not a folder',
};

/**
 * A file-system error in words, cause first: `permission denied (the folder is not writable by
 * this user) [EACCES: permission denied, mkdir '/runs/x']`; other errors as their message.
 */
export function fsCause(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  const words = err.code ? CAUSES[err.code] : undefined;
  return words ? `${words} [${err.message}]` : String(err.message ?? e);
}
