package io.basalt.broker.controller;

/** RocketMQ 5.2.0's Controller response codes (all named {@code CONTROLLER_…} there). */
public final class ControllerResponseCode {
    public static final int FENCED_MASTER_EPOCH = 2000;
    public static final int FENCED_SYNC_STATE_SET_EPOCH = 2001;
    public static final int INVALID_MASTER = 2002;
    public static final int INVALID_REPLICAS = 2003;
    public static final int MASTER_NOT_AVAILABLE = 2004;
    public static final int INVALID_REQUEST = 2005;
    public static final int BROKER_NOT_ALIVE = 2006;
    public static final int NOT_LEADER = 2007;
    public static final int BROKER_METADATA_NOT_EXIST = 2008;
    public static final int INVALID_CLEAN_BROKER_METADATA = 2009;
    public static final int BROKER_NEED_TO_BE_REGISTERED = 2010;
    public static final int MASTER_STILL_EXIST = 2011;
    public static final int ELECT_MASTER_FAILED = 2012;
    public static final int ALTER_SYNC_STATE_SET_FAILED = 2013;
    public static final int BROKER_ID_INVALID = 2014;
    public static final int JRAFT_INTERNAL_ERROR = 2015;
    public static final int BROKER_LIVE_INFO_NOT_EXISTS = 2016;

    private ControllerResponseCode() {
    }
}
