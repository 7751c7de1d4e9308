# bash completion for tollgatectl. The commands are listed here; each command's flags are read
# from its own `--help`, so they cannot drift from what the binary accepts.

_tollgatectl_command_flags()
{
    tollgatectl "$1" --help 2>/dev/null | grep -oE '(^|[[:space:],])--[a-z][a-z-]*' |
        sed 's/^[[:space:],]*//' | sort -u
}

_tollgatectl()
{
    local cur prev words cword
    _init_completion || return

    local commands="policy hit peek refund penalize override ban unban reset subjects repair audit scripts cluster exporter bench simulate help"
    local globals="--url --prefix --actor --json --askpass --no-auth-warning --help --version"

    case $prev in
        --url | --prefix | --actor) return ;;
    esac

    local command="" i
    for ((i = 1; i < cword; i++)); do
        case ${words[i]} in
            --url | --prefix | --actor) ((i++)) ;;
            -*) ;;
            *) command=${words[i]}; break ;;
        esac
    done

    if [[ -z $command ]]; then
        if [[ $cur == -* ]]; then
            mapfile -t COMPREPLY < <(compgen -W "$globals" -- "$cur")
        else
            mapfile -t COMPREPLY < <(compgen -W "$commands" -- "$cur")
        fi
        return
    fi
    if [[ $command == policy && $prev == policy ]]; then
        mapfile -t COMPREPLY < <(compgen -W "list get set delete reindex export apply" -- "$cur")
        return
    fi
    if [[ $command == override && $prev == override ]]; then
        mapfile -t COMPREPLY < <(compgen -W "set list delete reindex" -- "$cur")
        return
    fi
    if [[ $command == override && $cur == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$globals --limit --window --windows --unlimited --for --until --permanent --reason --action" -- "$cur")
        return
    fi
    if [[ $command == bench && $prev == bench ]]; then
        mapfile -t COMPREPLY < <(compgen -W "hit" -- "$cur")
        return
    fi
    if [[ $cur == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$globals $(_tollgatectl_command_flags "$command")" -- "$cur")
    fi
} && complete -F _tollgatectl tollgatectl
