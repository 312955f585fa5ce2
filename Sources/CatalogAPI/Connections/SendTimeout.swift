import NIOCore
import NIOHTTPTypes

/// Closes a connection that takes none of the bytes the server has for it for `timeout`: nginx's `send_timeout`.
///
/// The clock runs only while a response part waits to reach the socket, and starts again whenever one does, so a
/// client that reads slowly but steadily is not cut, and an idle keep-alive connection is left to the idle
/// timeout. A client that stopped reading (a phone asleep with the change feed open, a consumer stuck in a pause)
/// is closed: its pending writes fail, which ends the handler writing to it (a change stream frees its follower's
/// slot), and it costs the server no more than the socket's buffers and the parts waiting above them.
/// NIO tells when a part is written whole, not when some of its bytes are, so body parts go on in slices of
/// `sliceBytes`, and progress within one large body is seen. (The kernel takes more of a full socket's bytes only once
/// it has sent about a third of what it holds: progress is seen per slice or per that third, whichever is more.)
final class SendTimeout: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    static let sliceBytes = 16 * 1024

    private let timeout: TimeAmount
    private let onTimeout: @Sendable (SocketAddress?) -> Void
    /// Parts handed on whose write has not completed.
    private var unwritten = 0
    /// When a part last reached the socket, or when parts began to wait after none did.
    private var lastProgress = NIODeadline.now()
    private var check: Scheduled<Void>?

    /// - Parameter onTimeout: told the peer's address when a connection is closed for taking nothing.
    init(timeout: TimeAmount, onTimeout: @escaping @Sendable (SocketAddress?) -> Void) {
        self.timeout = timeout
        self.onTimeout = onTimeout
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .body(var buffer) = unwrapOutboundIn(data), buffer.readableBytes > Self.sliceBytes else {
            return track(data, context: context, promise: promise)
        }
        while buffer.readableBytes > Self.sliceBytes, let slice = buffer.readSlice(length: Self.sliceBytes) {
            track(wrapOutboundOut(.body(slice)), context: context, promise: nil)
        }
        track(wrapOutboundOut(.body(buffer)), context: context, promise: promise)
    }

    private func track(_ data: NIOAny, context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        let written = promise ?? context.eventLoop.makePromise()
        if unwritten == 0 { lastProgress = .now() }
        unwritten += 1
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        written.futureResult.whenComplete { _ in
            handler.value.unwritten -= 1
            handler.value.lastProgress = .now()
        }
        if check == nil { scheduleCheck(context: context) }
        context.write(data, promise: written)
    }

    private func scheduleCheck(context: ChannelHandlerContext) {
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        check = context.eventLoop.scheduleTask(deadline: lastProgress + timeout) {
            let (handler, context) = bound.value
            handler.check = nil
            guard handler.unwritten > 0 else { return }
            guard NIODeadline.now() - handler.lastProgress >= handler.timeout else { return handler.scheduleCheck(context: context) }
            handler.onTimeout(context.channel.remoteAddress)
            context.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        check?.cancel()
        check = nil
    }
}
