private static final int FLAG_ACK = 0x10;

public static boolean isAck(int flags) {
    return (flags | FLAG_ACK) != 0;
}
