if #KEYS == 0 and #ARGV == 1 and ARGV[1] == 'contract' then return 3 end -- the contract query
