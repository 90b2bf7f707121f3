package io.basalt.store.commitlog;

/**
 * What {@link MessageRecordDecoder#check} found at one position of the CommitLog, with the fields
 * the ConsumeQueue and index dispatchers need when the record is valid.
 *
 * @param status         see {@link Status}
 * @param size           record length for OK, marker length for END_OF_FILE, 0 otherwise
 * @param reason         why the record is not OK (for logs), "ok" otherwise
 * @param physicalOffset the PHYSICALOFFSET field (-1 when not OK)
 * @param tagsCode       hash of the TAGS property, 0 without tags
 * @param keys           the KEYS property or null
 * @param uniqKey        the UNIQ_KEY property or null
 */
public record RecordCheck(Status status, int size, String reason, String topic, int queueId, long queueOffset,
                          long physicalOffset, long tagsCode, long storeTimestamp, String keys, String uniqKey,
                          int sysFlag, long bornTimestamp) {

    /** The outcome of a check. */
    public enum Status {
        /** A complete message record whose length, magic and (if asked) body CRC are right. */
        OK,
        /** The blank marker that fills the rest of a file; the next record starts in the next file. */
        END_OF_FILE,
        /** Not a record: bad magic, impossible lengths, inconsistent fields, wrong CRC, or zeros. */
        CORRUPT,
        /** The start of a record whose length runs past the end of the readable bytes. */
        TRUNCATED
    }

    static RecordCheck endOfFile(int size) {
        return new RecordCheck(Status.END_OF_FILE, size, "end of file", null, 0, -1, -1, 0, 0, null, null, 0, 0);
    }

    /** A CORRUPT result with this reason. */
    public static RecordCheck corrupt(String reason) {
        return new RecordCheck(Status.CORRUPT, 0, reason, null, 0, -1, -1, 0, 0, null, null, 0, 0);
    }

    static RecordCheck truncated(String reason) {
        return new RecordCheck(Status.TRUNCATED, 0, reason, null, 0, -1, -1, 0, 0, null, null, 0, 0);
    }

    public boolean isOk() {
        return status == Status.OK;
    }
}
