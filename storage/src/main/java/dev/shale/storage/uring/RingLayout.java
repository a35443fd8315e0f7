package dev.shale.storage.uring;

/**
 * The byte layout of the structures Linux shares with a process through io_uring, and the
 * constants of its calls, from {@code include/uapi/linux/io_uring.h}: the kernel's ABI, the same
 * on x86-64 and aarch64 (fixed-size fields only, no padding that differs between them).
 */
final class RingLayout {
  private RingLayout() {}

  // The system call numbers: io_uring came after the numbering was unified, so every
  // architecture has these three (x86-64, aarch64 and the asm-generic table alike).
  static final long SYS_IO_URING_SETUP = 425;
  static final long SYS_IO_URING_ENTER = 426;
  static final long SYS_IO_URING_REGISTER = 427;

  // struct io_uring_params: 120 bytes the caller zeroes, the kernel fills.
  static final long PARAMS_BYTES = 120;
  static final long PARAMS_SQ_ENTRIES = 0;
  static final long PARAMS_CQ_ENTRIES = 4;
  static final long PARAMS_FEATURES = 20;
  static final long PARAMS_SQ_OFF = 40; // struct io_sqring_offsets, 40 bytes
  static final long PARAMS_CQ_OFF = 80; // struct io_cqring_offsets, 40 bytes

  // Within io_sqring_offsets: where in the mapped SQ ring each field lies.
  static final long SQ_OFF_HEAD = 0;
  static final long SQ_OFF_TAIL = 4;
  static final long SQ_OFF_RING_MASK = 8;
  static final long SQ_OFF_ARRAY = 24;

  // Within io_cqring_offsets: where in the mapped CQ ring each field lies.
  static final long CQ_OFF_HEAD = 0;
  static final long CQ_OFF_TAIL = 4;
  static final long CQ_OFF_RING_MASK = 8;
  static final long CQ_OFF_CQES = 20;

  // struct io_uring_sqe: 64 bytes.
  static final long SQE_BYTES = 64;
  static final long SQE_OPCODE = 0; // u8
  static final long SQE_FLAGS = 1; // u8
  static final long SQE_IOPRIO = 2; // u16
  static final long SQE_FD = 4; // s32
  static final long SQE_OFF = 8; // u64: the file offset
  static final long SQE_ADDR = 16; // u64: the buffer
  static final long SQE_LEN = 24; // u32
  static final long SQE_RW_FLAGS = 28; // u32
  static final long SQE_USER_DATA = 32; // u64
  static final long SQE_TAIL = 40; // buf_index, personality, splice_fd_in, addr3, pad: 24 bytes, zero

  // struct io_uring_cqe: 16 bytes (without IORING_SETUP_CQE32, which this ring does not ask for).
  static final long CQE_BYTES = 16;
  static final long CQE_USER_DATA = 0; // u64
  static final long CQE_RES = 8; // s32: bytes read, or -errno

  // The offsets to pass mmap for each region of the ring.
  static final long IORING_OFF_SQ_RING = 0;
  static final long IORING_OFF_CQ_RING = 0x8000000L;
  static final long IORING_OFF_SQES = 0x10000000L;

  static final int IORING_FEAT_SINGLE_MMAP = 1; // the SQ and CQ rings share one mapping
  static final int IORING_ENTER_GETEVENTS = 1;
  static final byte IORING_OP_READ = 22;
  static final int IORING_REGISTER_EVENTFD = 4;
  static final int IORING_UNREGISTER_EVENTFD = 5;
}
