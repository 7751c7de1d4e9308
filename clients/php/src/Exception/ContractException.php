<?php

declare(strict_types=1);

namespace Tollgate\Exception;

/** The policy hash or a script speaks another script contract than this client (lua/README.md, "Contract version"). */
final class ContractException extends TollgateException
{
    public const KIND = 'contract';
}
