#pragma once

namespace tollgate::service {

/// What the rls threads' completion queues carry as tags (GrpcServer polls them): the owner of
/// each operation, told when it is done. RLS calls, RLQS streams and the hand-back of answers
/// share the queues, so that no other thread waits on one (gRPC's pollers are the threads that
/// wait on a server's queues: each would take turns at reading every connection).
class QueueTag
{
public:
    virtual void proceed(bool ok) = 0;

protected:
    ~QueueTag() = default;
};

} // namespace tollgate::service
